// The operators' namespace. Each operator's file defines its schema (TORCH_LIBRARY_FRAGMENT) and
// registers its implementations per dispatch key (TORCH_LIBRARY_IMPL); which operators are built
// is the list TRITON_JIT_OPS in torch/ops/CMakeLists.txt. Owning the namespace here keeps a
// second library that claims triton_jit_ops an error at load time.
// The GPU implementations register for the CUDA dispatch key on every build: a ROCm build of torch
// dispatches its AMD GPUs' tensors (device 'cuda', "HIP masquerading as CUDA") through that key,
// and the launch takes its current HIP stream (triton_jit/torch/tensor_args.h).
#include <torch/library.h>

TORCH_LIBRARY(triton_jit_ops, m) {}
