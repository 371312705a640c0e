#pragma once
// Kept for source compatibility: the persistent kernel index's API is in index.h.
#include "triton_jit/index.h"
