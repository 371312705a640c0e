#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/records.h"
#include "triton_jit/signature.h"

namespace triton_jit::detail {

// A function a pack holds kernels of: its name, where it lives, the SHA-256 of its file when
// packed, and its static signature (so a process needs no Python to call it). Name, place and
// hash identify it: a process whose file is there matches the hash; one without the file matches
// the place, then takes that function's hash, so two functions whose files share a name never
// serve each other (pack_registry.cpp).
struct PackFunction {
  std::string name;
  // "module:NAME" when the manifest named it by module; else its file's path relative to the
  // pack's root ('/'-separated: the manifest's root= line, or the deepest folder holding all the
  // manifest's files), which a caller's path must end with.
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
// 2: kernel records carry tensor-descriptor metadata; 3: signatures carry decorators, packs carry
// tables; 4: a function's file is its path relative to the pack's root (was: as the manifest
// wrote it, matched by file name alone).
inline constexpr uint32_t kPackFormatVersion = 4;
// The largest pack a process reads (checked before reading): a pack is read whole into memory.
inline constexpr uint64_t kMaxPackBytes = uint64_t{4} << 30;

std::string encode_pack(const PackContents& pack);
// Throws FormatError.
PackContents decode_pack(std::string_view file);

}  // namespace triton_jit::detail
