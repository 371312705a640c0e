#pragma once
// A tuning choice named by hand (a pack manifest's `autotune key=... config=...` line): which
// autotuner of a function it is for, and which of its configs it names.

#include <cstdint>
#include <optional>
#include <string>

#include "triton_jit/decorators.h"
#include "triton_jit/signature.h"

namespace triton_jit::detail {

// The autotuner `requested` names (an index into signature.decorators), or the function's only
// one when it is -1; nullopt with *why when there is none such.
std::optional<size_t> autotune_layer_of(const StaticSignature& signature, int requested, std::string* why);

// The config `choice` names: its index ("1"), or its values as a Python dict
// ({"BLOCK": 64, "num_warps": 4}: the config whose kwargs and launch options include all of them,
// which must be exactly one); nullopt with *why (listing the configs) otherwise.
std::optional<uint32_t> config_choice(const StaticSignature& signature, const AutotuneInfo& info,
                                      const std::string& choice, std::string* why);

}  // namespace triton_jit::detail
