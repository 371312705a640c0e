// A user's program: looks up a @triton.jit function and prints what the runtime knows of it.
// Usage: print_signature FILE.py FUNCTION
#include <cstdio>

#include <triton_jit/triton_jit.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE.py FUNCTION\n", argv[0]);
    return 2;
  }
  try {
    const auto& fn = triton_jit::TritonJitFunction::get(argv[1], argv[2]);
    std::printf("libtriton_jit %s, triton %s\n", TRITON_JIT_VERSION_STRING, triton_jit::triton_version().c_str());
    std::printf("%s (%zu parameters)\n%s", fn.name().c_str(), fn.signature().params.size(),
                fn.signature().to_string().c_str());
    return 0;
  } catch (const triton_jit::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
