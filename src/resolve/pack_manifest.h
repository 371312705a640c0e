#pragma once
// The manifest reader behind read_pack_manifest (pack_manifest.cpp), on text already read.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/pack.h"

namespace triton_jit::detail {

// The largest manifest read_pack_manifest reads (a manifest line is some 100 bytes).
inline constexpr size_t kMaxManifestBytes = size_t{64} << 20;

// The entries of manifest text; `manifest_path` only names the file in errors. Throws PackError
// naming the line that does not parse.
std::vector<PackManifestEntry> parse_pack_manifest(std::string_view text, const std::string& manifest_path);

}  // namespace triton_jit::detail
