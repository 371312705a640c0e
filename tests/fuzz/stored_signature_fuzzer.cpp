// The stored signature reader (src/store/records.cpp: a function's parameters and its
// @triton.heuristics / @triton.autotune layers, in the index and in packs) on hostile bytes, as
// the payload of a validly sealed file: FormatError with a message, or a signature that prints,
// keeps its parameter indices in range and writes back to the bytes it reads as.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "store/binary_io.h"
#include "store/records.h"

using triton_jit::detail::BinaryReader;
using triton_jit::detail::BinaryWriter;
using triton_jit::detail::FormatError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  triton_jit::StaticSignature s;
  try {
    BinaryReader r(bytes);
    s = triton_jit::detail::read_signature(r);
  } catch (const FormatError& e) {
    fuzz::check_message(e.what);
    return 0;
  }
  (void)s.to_string();
  const int n = static_cast<int>(s.params.size());
  for (const auto& layer : s.decorators) {
    for (const auto& h : layer.heuristics) fuzz::check(h.param >= 0 && h.param < n, "a heuristic out of range");
    for (const auto& c : layer.autotune.configs) {
      for (const auto& kv : c.kwargs) fuzz::check(kv.first >= 0 && kv.first < n, "a config value out of range");
    }
  }
  BinaryWriter w;
  triton_jit::detail::write_signature(w, s);
  BinaryReader again(w.bytes());
  const triton_jit::StaticSignature reread = triton_jit::detail::read_signature(again);
  fuzz::check(again.at_end(), "a written signature reads back shorter");
  BinaryWriter w2;
  triton_jit::detail::write_signature(w2, reread);
  fuzz::check(w.bytes() == w2.bytes(), "a signature does not survive writing and reading back");
  return 0;
}
