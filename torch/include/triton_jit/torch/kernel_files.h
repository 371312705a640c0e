#pragma once

#include <string>

namespace triton_jit::torch {

// Path of a Triton kernel file shipped beside a library: "<folder of the library that contains
// `symbol`>/triton_jit_kernels/<file>". The build tree and the installed layout both keep that
// folder next to the library, so no absolute build path is baked in.
std::string kernel_file_beside(const void* symbol, const char* file);

}  // namespace triton_jit::torch
