#pragma once

#include <string_view>

#include "triton_jit/signature.h"
#include "triton_jit/specialization.h"

namespace triton_jit::detail {

// Reads Triton's signature syntax ("*fp16:16,i32,1024,'abc',None"), one item per parameter of
// `signature`. Throws ArgumentError naming the item that does not parse.
Specialization parse_signature(const StaticSignature& signature, std::string_view text);

}  // namespace triton_jit::detail
