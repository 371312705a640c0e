#pragma once
// What identifies an argument for a memoized heuristic or an autotuner's key: the parts of its
// value Python code can observe through a kernel's arguments. A pointer stands for a tensor, and
// heuristics and tuning keys read a tensor's dtype, never its address; so a pointer is identified
// by its dtype alone.

#include <cstdint>
#include <string>
#include <string_view>

#include "triton_jit/arg.h"

namespace triton_jit::detail {

inline constexpr uint32_t kIdentityWords = 2;

// A string's 64-bit FNV-1a hash (with its length), for its identity.
uint64_t string_identity(std::string_view s) noexcept;

// Two words: the kind with the dtype and its spelling, then the value (int, float bits, bool;
// a string's hash; nothing for a pointer or None). Inline: a tuning key computes it per call.
inline void identity_words(const ArgValue& a, uint64_t out[kIdentityWords]) noexcept {
  const uint64_t kind = static_cast<uint64_t>(a.kind());
  switch (a.kind()) {
    case ArgValue::Kind::Pointer:
    case ArgValue::Kind::TensorDesc:
      out[0] = kind | static_cast<uint64_t>(a.dtype()) << 8;
      out[1] = 0;
      return;
    case ArgValue::Kind::String:
      out[0] = kind;
      out[1] = string_identity(a.as_string());
      return;
    case ArgValue::Kind::None:
      out[0] = kind;
      out[1] = 0;
      return;
    default:
      out[0] = kind;
      out[1] = a.bits();  // int, uint, float bits, bool, dtype (with its spelling bit)
      return;
  }
}

// Python's repr of what identifies `a`: 1024, True, 1.5, 'relu', None, triton.language.float16,
// and for a pointer 'torch.float16' (str of its tensor's dtype, quoted as in a tuning key).
std::string identity_repr(const ArgValue& a);

}  // namespace triton_jit::detail
