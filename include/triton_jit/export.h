#pragma once

// Symbols of the shared library are hidden unless marked; the static build needs no marking.
#if defined(TRITON_JIT_STATIC)
#define TRITON_JIT_API
#elif defined(TRITON_JIT_BUILDING)
#define TRITON_JIT_API __attribute__((visibility("default")))
#else
#define TRITON_JIT_API
#endif
