#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/records.h"
#include "triton_jit/signature.h"

namespace triton_jit::detail {

// A function a pack holds kernels of: its name, its file as the manifest named it, the SHA-256
// of that file when packed, and its static signature (so a process needs no Python to call it).
struct PackFunction {
  std::string name;
  std::string file;
  std::string source_sha256;
  StaticSignature signature;
  // The index's tables of the function when packed (tuning results, memoized heuristic values):
  // (table name, its entries).
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> tables;
};

struct PackContents {
  std::vector<PackFunction> functions;
  std::vector<uint32_t> kernel_function;  // index into functions, one per kernel
  std::vector<KernelRecord> kernels;
};

inline constexpr std::string_view kPackMagic = "TJITPACK";
inline constexpr uint32_t kPackFormatVersion = 3;  // 2: kernel records carry tensor-descriptor metadata;
                                                   // 3: signatures carry decorators, packs carry tables

std::string encode_pack(const PackContents& pack);
// Throws FormatError.
PackContents decode_pack(std::string_view file);

}  // namespace triton_jit::detail
