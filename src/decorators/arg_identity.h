#pragma once
// What identifies an argument for a memoized heuristic or an autotuner's key: the parts of its
// value Python code can observe through a kernel's arguments. A pointer stands for a tensor, and
// heuristics and tuning keys read a tensor's dtype, never its address; so a pointer is identified
// by its dtype alone.

#include <cstdint>
#include <string>

#include "triton_jit/arg.h"

namespace triton_jit::detail {

inline constexpr uint32_t kIdentityWords = 2;

// Two words: the kind with the dtype and its spelling, then the value (int, float bits, bool;
// a string's hash; nothing for a pointer or None).
void identity_words(const ArgValue& a, uint64_t out[kIdentityWords]) noexcept;

// Python's repr of what identifies `a`: 1024, True, 1.5, 'relu', None, triton.language.float16,
// and for a pointer 'torch.float16' (str of its tensor's dtype, quoted as in a tuning key).
std::string identity_repr(const ArgValue& a);

}  // namespace triton_jit::detail
