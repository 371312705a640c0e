// The CLI's --args reader (tools/cli/json_args.cpp) on hostile JSON: UsageError with a one-line
// message, or arguments of a known form, for both the commands that refuse device memory and
// `triton-jit tune`, which accepts it (nothing is allocated here: allocate() is not called).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "json_args.h"
#include "usage_error.h"

using triton_jit_cli::JsonArgs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (JsonArgs::Memory memory : {JsonArgs::Memory::Refuse, JsonArgs::Memory::Allocate}) {
    try {
      JsonArgs args(text, memory);
      const triton_jit::ArgSpan span = args.span();
      fuzz::check(span.size == args.size(), "a span of another size");
      for (size_t i = 0; i < span.size; ++i) {
        if (span[i].kind() == triton_jit::ArgValue::Kind::String) (void)std::string(span[i].as_string());
      }
    } catch (const triton_jit_cli::UsageError& e) {
      const std::string message = e.what();
      fuzz::check_message(message);
      fuzz::check(message.find('\n') == std::string::npos, "a usage error of more than one line");
    }
  }
  return 0;
}
