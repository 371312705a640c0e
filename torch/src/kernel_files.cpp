#include "triton_jit/torch/kernel_files.h"

#include <c10/util/Exception.h>
#include <dlfcn.h>

#include <filesystem>

namespace triton_jit::torch {

std::string kernel_file_beside(const void* symbol, const char* file) {
  Dl_info info{};
  TORCH_CHECK(dladdr(symbol, &info) != 0 && info.dli_fname != nullptr,
              "triton_jit: cannot tell which library holds the operators");
  const std::filesystem::path library = std::filesystem::canonical(info.dli_fname);
  const std::filesystem::path path = library.parent_path() / "triton_jit_kernels" / file;
  TORCH_CHECK(std::filesystem::is_regular_file(path), "triton_jit: kernel file ", path.string(),
              " is missing; it is installed beside ", library.string());
  return path.string();
}

}  // namespace triton_jit::torch
