// Hostile bytes against the readers of what decorated functions store: a stored signature with
// its decorator layers, and heuristic program text. Every mutation of a valid input (flipped
// bytes, overwritten counts, truncation) must end in the reader's own error (FormatError,
// std::invalid_argument) or a valid result: never a crash, another exception, or an unbounded
// allocation. Sealed files also carry a SHA-256, which catches accidental damage first; these
// tests feed the payload readers directly, as a crafted file with a matching digest would.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "decorators/heuristic_program.h"
#include "store/binary_io.h"
#include "store/records.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

using triton_jit::detail::BinaryReader;
using triton_jit::detail::BinaryWriter;
using triton_jit::detail::FormatError;

namespace {

constexpr int kMutations = 20000;

// One random mutation: flip a byte, write a large little-endian count, or cut the tail.
std::string mutate(std::string bytes, std::mt19937_64& rng) {
  if (bytes.empty()) return bytes;
  switch (rng() % 3) {
    case 0: bytes[rng() % bytes.size()] ^= static_cast<char>(1u << (rng() % 8)); break;
    case 1: {
      const size_t at = rng() % bytes.size();
      const uint32_t counts[] = {0u, 1u, 0xffffu, 0x10000u, 0x7fffffffu, 0xffffffffu};
      const uint32_t v = counts[rng() % 6];
      for (size_t i = 0; i < 4 && at + i < bytes.size(); ++i) bytes[at + i] = static_cast<char>(v >> (8 * i));
      break;
    }
    default: bytes.resize(rng() % bytes.size()); break;
  }
  return bytes;
}

}  // namespace

TEST(RecordMutation, StoredSignatureWithDecoratorsRejectsOrReads) {
  // A signature with both kinds of layer: autotune over heuristics (tests/kernels/decorated.py).
  const auto& fn = triton_jit::TritonJitFunction::get(test::kernel("decorated.py"), "matmul_kernel");
  ASSERT_EQ(fn.signature().decorators.size(), 2u);
  BinaryWriter w;
  triton_jit::detail::write_signature(w, fn.signature());
  const std::string valid = w.bytes();
  {
    BinaryReader r(valid);
    const auto read = triton_jit::detail::read_signature(r);
    ASSERT_EQ(read.decorators.size(), 2u);
    EXPECT_EQ(read.decorators[0].autotune.configs.size(), 3u);
  }
  std::mt19937_64 rng(20261123);
  int rejected = 0, read_back = 0;
  for (int i = 0; i < kMutations; ++i) {
    const std::string bytes = mutate(valid, rng);
    try {
      BinaryReader r(bytes);
      triton_jit::detail::read_signature(r);
      ++read_back;
    } catch (const FormatError&) {
      ++rejected;
    }
  }
  std::printf("%d mutations: %d rejected as damaged, %d read as another valid signature\n", kMutations, rejected,
              read_back);
  EXPECT_GT(rejected, kMutations / 4);
}

TEST(RecordMutation, HeuristicProgramTextRejectsOrParses) {
  const auto& fn = triton_jit::TritonJitFunction::get(test::kernel("decorated.py"), "row_sum_kernel");
  std::mt19937_64 rng(7);
  int rejected = 0, parsed = 0, evaluated = 0;
  const triton_jit::ArgValue args[] = {
      triton_jit::ArgValue::pointer(reinterpret_cast<void*>(0x1000), triton_jit::DType::fp32),
      triton_jit::ArgValue::none(),
      triton_jit::ArgValue::pointer(reinterpret_cast<void*>(0x2000), triton_jit::DType::fp32),
      triton_jit::ArgValue::integer(7),
      triton_jit::ArgValue::integer(100),
      triton_jit::ArgValue::integer(100),
      triton_jit::ArgValue::none(),
      triton_jit::ArgValue::none(),
      triton_jit::ArgValue::none()};
  for (const auto& h : fn.signature().decorators.at(0).heuristics) {
    ASSERT_FALSE(h.program.empty()) << h.name;
    for (int i = 0; i < kMutations / 4; ++i) {
      const std::string text = mutate(h.program, rng);
      try {
        const auto program = triton_jit::detail::HeuristicProgram::parse(text);
        ++parsed;
        triton_jit::ArgValue out;
        // A program that parses is checked (stack depths, jumps, parameters): evaluating it over
        // any arguments is defined, whatever it computes.
        if (program.evaluate(args, std::size(args), &out) == triton_jit::detail::HeuristicProgram::Outcome::Value) {
          ++evaluated;
        }
      } catch (const std::invalid_argument&) {
        ++rejected;
      }
    }
  }
  std::printf("heuristic programs: %d rejected, %d parsed (%d evaluated to a value)\n", rejected, parsed, evaluated);
  EXPECT_GT(rejected, 0);
}
