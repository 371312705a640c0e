// The pack-manifest parser (src/resolve/pack_manifest.cpp) on hostile text: PackError naming
// the line, or entries whose options and targets print.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "key/key_text.h"
#include "resolve/pack_manifest.h"
#include "triton_jit/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& e : triton_jit::detail::parse_pack_manifest(text, "fuzz.manifest")) {
      fuzz::check(!e.file.empty() && !e.function.empty(), "an entry without its file or function");
      // An autotune line names a tuning choice, not a kernel: it has no signature.
      fuzz::check(e.autotune || !e.signature.empty(), "a kernel entry without its signature");
      // A NUL would cut a path or an option passed on as a C string: such a line is refused.
      for (const std::string* s : {&e.file, &e.function, &e.signature, &e.root}) {
        fuzz::check(s->find('\0') == std::string::npos, "an entry holding a NUL byte");
      }
      (void)triton_jit::detail::options_text(&e.options);
      for (const auto& t : e.targets) (void)t.str();
    }
  } catch (const triton_jit::PackError& e) {
    fuzz::check_message(e.what());
    fuzz::check(e.path() == "fuzz.manifest", "a manifest error that does not name the manifest");
  }
  return 0;
}
