#include "triton_jit/triton_jit.h"
void f(char c) { (void)triton_jit::to_arg(c); }
