#include "triton_jit/triton_jit.h"
void f(void* p) { (void)triton_jit::to_arg(p); }
