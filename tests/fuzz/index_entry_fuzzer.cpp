// The kernel index's entry reader (src/store/records.cpp, docs/FORMATS.md) on hostile bytes.
// The input is taken two ways: as a whole sealed file (header, size, SHA-256: unseal), and as
// the payload behind a valid seal (read_kernel_record), which a crafted file with a matching
// digest would reach. Either ends in FormatError with a message or in a record that writes back
// to the same bytes it reads as.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "store/binary_io.h"
#include "store/files.h"
#include "store/records.h"

using triton_jit::detail::BinaryReader;
using triton_jit::detail::BinaryWriter;
using triton_jit::detail::FormatError;
using triton_jit::detail::KernelRecord;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The magic and version of index kernel entries (src/store/index_entries.cpp).
  try {
    triton_jit::detail::unseal(bytes, "TJITKRNL", 3);
  } catch (const FormatError& e) {
    fuzz::check_message(e.what);
  }

  KernelRecord record;
  try {
    BinaryReader r(bytes);
    record = triton_jit::detail::read_kernel_record(r);
  } catch (const FormatError& e) {
    fuzz::check_message(e.what);
    return 0;
  }
  // What `triton-jit index list` and a miss's messages make of a record.
  (void)record.key.text();
  (void)record.key.manifest_line(record.function_path, record.function_name);
  (void)record.kernel.info.to_json();
  (void)triton_jit::detail::stale_reason({});

  BinaryWriter w;
  triton_jit::detail::write_kernel_record(w, record);
  BinaryReader again(w.bytes());
  const KernelRecord reread = triton_jit::detail::read_kernel_record(again);
  fuzz::check(again.at_end(), "a written record reads back shorter");
  BinaryWriter w2;
  triton_jit::detail::write_kernel_record(w2, reread);
  fuzz::check(w.bytes() == w2.bytes(), "a record does not survive writing and reading back");
  return 0;
}
