#pragma once

// The public API of libtriton_jit: call @triton.jit kernels from C++.
#include "triton_jit/arg.h"
#include "triton_jit/dtype.h"
#include "triton_jit/errors.h"
#include "triton_jit/index.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/kernel_info.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/pack.h"
#include "triton_jit/prepare.h"
#include "triton_jit/settings.h"
#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"
#include "triton_jit/stats.h"
#include "triton_jit/target.h"
#include "triton_jit/tensor_descriptor.h"
#include "triton_jit/version.h"
