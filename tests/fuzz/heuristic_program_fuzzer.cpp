// Heuristic program text (src/decorators/heuristic_program.cpp: what the bridge translates a
// @triton.heuristics lambda into, stored in the index and in packs) on hostile text: parse throws
// std::invalid_argument with a message, or the program evaluates (noexcept, no allocation) over
// arguments of every kind without reading outside them.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include "decorators/heuristic_program.h"
#include "fuzz_check.h"
#include "triton_jit/arg.h"

using triton_jit::ArgValue;
using triton_jit::detail::HeuristicProgram;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  HeuristicProgram program;
  try {
    program = HeuristicProgram::parse(text);
  } catch (const std::invalid_argument& e) {
    fuzz::check_message(e.what());
    return 0;
  }
  static const char kName[] = "relu";
  const ArgValue args[] = {ArgValue::pointer(reinterpret_cast<void*>(0x1000), triton_jit::DType::fp16),
                           ArgValue::none(),
                           ArgValue::integer(7),
                           ArgValue::integer(-1),
                           ArgValue::integer(int64_t{1} << 62),
                           ArgValue::floating(2.5),
                           ArgValue::boolean(true),
                           ArgValue::string(std::string_view(kName, 4)),
                           ArgValue::triton_dtype(triton_jit::DType::bf16),
                           ArgValue::torch_dtype(triton_jit::DType::fp32),
                           ArgValue::unsigned_integer(~uint64_t{0}),
                           ArgValue::integer(0)};
  // Fewer arguments than the program reads: evaluate must not read past them.
  for (size_t n : {std::size(args), size_t{3}, size_t{0}}) {
    ArgValue out;
    (void)program.evaluate(args, n, &out);
  }
  return 0;
}
