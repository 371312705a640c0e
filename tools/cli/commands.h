#pragma once

#include "options.h"

namespace triton_jit_cli {

// Each command returns the exit status; failures throw (UsageError: 2, anything else: 1).
int run_inspect(const Options& options);
int run_specialize(const Options& options);
int run_compile(const Options& options);
int run_tune(const Options& options);
int run_index(const Options& options);
int run_pack(const Options& options);

}  // namespace triton_jit_cli
