// The kernel-pack reader (src/store/pack_file.cpp, docs/FORMATS.md) on hostile bytes: the input
// as a whole pack file (decode_pack checks the header and the SHA-256), and as the payload of a
// validly sealed one. Either ends in FormatError with a message, or in a pack whose table of
// contents can be listed and which encodes back to what it was read from.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "store/binary_io.h"
#include "store/files.h"
#include "store/pack_file.h"
#include "store/pack_registry.h"

using triton_jit::detail::FormatError;
using triton_jit::detail::PackContents;

namespace {

void read_as_pack(std::string_view file) {
  PackContents pack;
  try {
    pack = triton_jit::detail::decode_pack(file);
  } catch (const FormatError& e) {
    fuzz::check_message(e.what);
    return;
  }
  // What loading a pack and `triton-jit inspect` compute from it.
  (void)triton_jit::detail::pack_info("fuzz.tjp", pack);
  for (const auto& k : pack.kernels) (void)k.key.text();
  for (const auto& f : pack.functions) (void)f.signature.to_string();
  const std::string encoded = triton_jit::detail::encode_pack(pack);
  const std::string again = triton_jit::detail::encode_pack(triton_jit::detail::decode_pack(encoded));
  fuzz::check(encoded == again, "a pack does not survive encoding and decoding");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  read_as_pack(bytes);
  read_as_pack(triton_jit::detail::seal(triton_jit::detail::kPackMagic, triton_jit::detail::kPackFormatVersion, bytes));
  return 0;
}
