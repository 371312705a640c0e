#include <vector>

#include "triton_jit/triton_jit.h"
void f(const std::vector<int>& v) { (void)triton_jit::to_arg(v); }
