#pragma once
// Random call arguments for the parity tests: values at and around every boundary Triton's
// specializer looks at (1, multiples of 16, the i32/i64/u64 ranges, pointer alignment) and
// constexpr values whose Python repr is easy to get wrong.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "triton_jit/triton_jit.h"

namespace test {

class ArgGenerator {
 public:
  explicit ArgGenerator(uint64_t seed) : rng_(seed) {}

  triton_jit::ArgValue integer() {
    using triton_jit::ArgValue;
    constexpr int64_t i32max = std::numeric_limits<int32_t>::max(), i32min = std::numeric_limits<int32_t>::min();
    constexpr int64_t i64max = std::numeric_limits<int64_t>::max(), i64min = std::numeric_limits<int64_t>::min();
    // A table laid out by hand.
    // clang-format off
    static const int64_t kEdges[] = {0,           1,           -1,          2,          15,         16,
                                     17,          31,          32,          -15,        -16,        -17,
                                     48,          1024,        i32max,      i32max - 15, i32min,    i32min + 16,
                                     i32max + 1,  i32min - 1,  i32min - 16, i32max + 17, 1ll << 32, (1ll << 32) + 1,
                                     i64max,      i64max - 15, i64min,     i64min + 1, i64min + 16};
    // clang-format on
    static const uint64_t kUnsignedEdges[] = {1ull << 63, (1ull << 63) + 1, (1ull << 63) + 16,
                                              std::numeric_limits<uint64_t>::max(),
                                              std::numeric_limits<uint64_t>::max() - 15};
    switch (pick(7)) {
      case 0: return ArgValue::integer(kEdges[pick(std::size(kEdges))]);
      case 1: return ArgValue::unsigned_integer(kUnsignedEdges[pick(std::size(kUnsignedEdges))]);
      case 2: {  // multiples of 16 (and neighbours) at every magnitude
        const int bits = static_cast<int>(pick(59));
        int64_t v = static_cast<int64_t>((rng_() & ((1ull << bits) - 1)) * 16);
        if (pick(2)) v = -v;
        return ArgValue::integer(v + static_cast<int64_t>(pick(3)) - 1);
      }
      case 3: return ArgValue::integer(static_cast<int32_t>(rng_()));
      case 4: return ArgValue::integer(static_cast<int64_t>(rng_()));
      case 5: return ArgValue::unsigned_integer(rng_() | (1ull << 63));
      default: return ArgValue::integer(static_cast<int64_t>(pick(201)) - 100);
    }
  }

  double float_value() {
    const double inf = std::numeric_limits<double>::infinity();
    // A table laid out by hand.
    // clang-format off
    static const double kSpecials[] = {0.0,     -0.0,   1.0,     -1.0,    0.5,       1.5,      2.0,     1e20,
                                       1e-5,    1e16,   1e15,    1e-4,    1e-3,      0.1,      1.0 / 3, 123456789.0,
                                       1e22,    1e23,   5e-324,  2.2250738585072014e-308, 1.7976931348623157e308,
                                       inf,     -inf,   std::nan(""), 9007199254740993.0, 1e300, -1e-300,
                                       123.456, 1e100, 0.3,     2.5e-7,  4.35,      1e21,     1e-7};
    // clang-format on
    switch (pick(6)) {
      case 0: return kSpecials[pick(std::size(kSpecials))];
      case 1: {  // any bit pattern: subnormals, NaN payloads, huge and tiny values
        uint64_t bits = rng_();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
      }
      case 2: return std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
      case 3: return static_cast<double>(static_cast<int64_t>(pick(2000001)) - 1000000);
      case 4: {
        // On and next to powers of two, where the rounding interval is asymmetric.
        const double m = 1.0 + std::ldexp(static_cast<double>(pick(4)), -52);
        return std::ldexp(pick(2) ? m : -m, static_cast<int>(pick(2046)) - 1022);
      }
      default: {  // short decimals: m * 10^e, where the shortest repr matters
        const double m = static_cast<double>(static_cast<int64_t>(pick(20001)) - 10000);
        return m * std::pow(10.0, static_cast<double>(static_cast<int>(pick(61)) - 30));
      }
    }
  }

  triton_jit::ArgValue floating() { return triton_jit::ArgValue::floating(float_value()); }

  triton_jit::ArgValue pointer() {
    const auto dtype = static_cast<triton_jit::DType>(pick(triton_jit::kNumDTypes));
    uint64_t address;
    switch (pick(5)) {
      case 0: address = 0; break;  // a null pointer is aligned
      case 1: address = (rng_() & 0xffffffffffffull) & ~uint64_t{15}; break;
      case 2: address = ((rng_() & 0xffffffffffffull) & ~uint64_t{15}) + 1 + pick(15); break;
      case 3: address = 0x7f0000000000ull + pick(64) * 8; break;  // 8-byte aligned: half divisible by 16
      default: address = (rng_() & 0xffffffffull) | 1; break;
    }
    return triton_jit::ArgValue::pointer_address(address, dtype);
  }

  // Strings whose Python repr is ASCII or printable UTF-8 (see repr_test for the rest).
  triton_jit::ArgValue string() {
    static const char* const kFixed[] = {"",
                                         "fast",
                                         "a'b",
                                         "a\"b",
                                         "both'\"",
                                         "back\\slash",
                                         "new\nline",
                                         "tab\there",
                                         "cr\r",
                                         "\x01"
                                         "ctrl",
                                         "del\x7f",
                                         "esc\x1b",
                                         "\xc3\xa9t\xc3\xa9",
                                         "\xe4\xb8\xad\xe6\x96\x87",
                                         "emoji \xf0\x9f\x98\x80",
                                         "\\n",
                                         "'",
                                         "\"",
                                         "''\"\"",
                                         "  spaces  "};
    static const char* const kPool[] = {
        "a", "Z", "0", " ", "'", "\"", "\\", "\n", "\t", "\r", "\x1b", "\x7f", "\x01", "\xc3\xa9", "\xf0\x9f\x98\x80",
        "~", "{", "%"};
    std::string s;
    if (pick(3) == 0) {
      s = kFixed[pick(std::size(kFixed))];
    } else {
      const size_t n = pick(9);
      for (size_t i = 0; i < n; ++i) s += kPool[pick(std::size(kPool))];
      if (pick(8) == 0) s.push_back('\0');  // an embedded NUL travels with the length
    }
    strings_.push_back(std::move(s));
    return triton_jit::ArgValue::string(strings_.back());
  }

  // A dtype in either spelling: Triton's (tl.float16) or, when torch_dtypes is on, torch's
  // (torch.float16), which torch lacks for fp8e4b15.
  triton_jit::ArgValue dtype() {
    const auto d = static_cast<triton_jit::DType>(pick(triton_jit::kNumDTypes));
    if (torch_dtypes && pick(2) && !triton_jit::torch_name(d).empty()) return triton_jit::ArgValue::torch_dtype(d);
    return triton_jit::ArgValue::triton_dtype(d);
  }

  triton_jit::ArgValue constexpr_value() {
    switch (pick(7)) {
      case 0:
      case 1: return integer();
      case 2: return triton_jit::ArgValue::boolean(pick(2));
      case 3: return floating();
      case 4: return triton_jit::ArgValue::none();
      case 5: return dtype();
      default: return string();
    }
  }

  // A value the parameter accepts in C++ (C++ rejects some that Python's binder lets through,
  // e.g. a float for an annotated integer; those are covered by the error tests).
  triton_jit::ArgValue for_param(const triton_jit::ParamInfo& p) {
    using triton_jit::ArgValue;
    if (p.is_constexpr) return constexpr_value();
    const std::string& t = p.annotation_type;
    if (!t.empty() && t[0] == '*') return pick(10) ? pointer() : ArgValue::none();
    const bool float_type = t.rfind("fp", 0) == 0 || t.rfind("bf", 0) == 0;
    if (!t.empty() && !float_type) {  // integer types, u1 included
      switch (pick(6)) {
        case 0: return ArgValue::boolean(pick(2));
        case 1: return ArgValue::none();
        default: return integer();
      }
    }
    if (float_type) {
      switch (pick(6)) {
        case 0: return ArgValue::boolean(pick(2));
        case 1: return ArgValue::none();
        case 2: return integer();
        default: return floating();
      }
    }
    switch (pick(8)) {
      case 0: return pick(16) ? ArgValue::boolean(pick(2)) : dtype();  // a dtype: both sides reject it
      case 1: return ArgValue::none();
      case 2: return floating();
      case 3:
      case 4: return pointer();
      default: return integer();
    }
  }

  uint64_t pick(uint64_t n) { return rng_() % n; }

  bool torch_dtypes = true;  // whether dtype() may spell a dtype as torch does
  std::mt19937_64& rng() { return rng_; }

  // Strings live as long as the generator: ArgValue only views them.
  void clear_strings() { strings_.clear(); }

 private:
  std::mt19937_64 rng_;
  std::deque<std::string> strings_;
};

// A readable form of an argument for failure messages.
inline std::string describe(const triton_jit::ArgValue& a) {
  using K = triton_jit::ArgValue::Kind;
  char buf[64];
  switch (a.kind()) {
    case K::None: return "None";
    case K::Bool: return a.as_bool() ? "True" : "False";
    case K::Int: return std::to_string(a.as_int());
    case K::UInt: return std::to_string(a.as_uint()) + "u";
    case K::Float: std::snprintf(buf, sizeof buf, "%.17g", a.as_float()); return buf;
    case K::Pointer:
      std::snprintf(buf, sizeof buf, "ptr(0x%llx, ", static_cast<unsigned long long>(a.address()));
      return buf + std::string(triton_jit::dtype_name(a.dtype())) + ")";
    case K::DType:
      return (a.is_torch_dtype() ? "torch." + std::string(triton_jit::torch_name(a.dtype()))
                                 : "tl." + std::string(triton_jit::triton_language_name(a.dtype())));
    case K::String: {
      std::string out = "str[";
      for (unsigned char c : a.as_string()) {
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        }
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace test
