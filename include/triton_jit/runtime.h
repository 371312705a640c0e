#pragma once
// Kept for source compatibility: the settings moved to settings.h, the counters to stats.h.
#include "triton_jit/settings.h"
#include "triton_jit/stats.h"
