#include "decorators/heuristic_program.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

namespace triton_jit::detail {
namespace {

using Op = HeuristicProgram::Op;
using Insn = HeuristicProgram::Insn;
using i128 = __int128;
using u128 = unsigned __int128;

constexpr i128 kI128Max = static_cast<i128>(~u128{0} >> 1);
constexpr i128 kI128Min = -kI128Max - 1;

// ---- parsing ----

struct OpName {
  std::string_view name;
  Op op;
  int pops;      // values taken (Min/Max: by count)
  int pushes;    // values left
  int operands;  // text operands after the name
};

// A table laid out by hand.
// clang-format off
constexpr OpName kOps[] = {
    {"param", Op::Param, 0, 1, 1},    {"int", Op::Int, 0, 1, 1},       {"float", Op::Float, 0, 1, 1},
    {"bool", Op::Bool, 0, 1, 1},      {"none", Op::None, 0, 1, 0},     {"str", Op::Str, 0, 1, -1},
    {"dtype", Op::DType, 0, 1, 2},
    {"neg", Op::Neg, 1, 1, 0},        {"pos", Op::Pos, 1, 1, 0},       {"invert", Op::Invert, 1, 1, 0},
    {"not", Op::Not, 1, 1, 0},        {"isnone", Op::IsNone, 1, 1, 0}, {"istrue", Op::IsTrue, 1, 1, 0},
    {"isfalse", Op::IsFalse, 1, 1, 0}, {"abs", Op::Abs, 1, 1, 0},      {"int", Op::ToInt, 1, 1, 0},
    {"float", Op::ToFloat, 1, 1, 0},  {"bool", Op::ToBool, 1, 1, 0},
    {"next_power_of_2", Op::NextPowerOf2, 1, 1, 0},
    {"dtype_of", Op::DTypeOf, 1, 1, 0}, {"element_size", Op::ElementSize, 1, 1, 0},
    {"add", Op::Add, 2, 1, 0},        {"sub", Op::Sub, 2, 1, 0},       {"mul", Op::Mul, 2, 1, 0},
    {"truediv", Op::TrueDiv, 2, 1, 0}, {"floordiv", Op::FloorDiv, 2, 1, 0}, {"mod", Op::Mod, 2, 1, 0},
    {"pow", Op::Pow, 2, 1, 0},        {"lshift", Op::LShift, 2, 1, 0}, {"rshift", Op::RShift, 2, 1, 0},
    {"bitand", Op::BitAnd, 2, 1, 0},  {"bitor", Op::BitOr, 2, 1, 0},   {"bitxor", Op::BitXor, 2, 1, 0},
    {"eq", Op::Eq, 2, 1, 0},          {"ne", Op::Ne, 2, 1, 0},         {"lt", Op::Lt, 2, 1, 0},
    {"le", Op::Le, 2, 1, 0},          {"gt", Op::Gt, 2, 1, 0},         {"ge", Op::Ge, 2, 1, 0},
    {"cdiv", Op::CDiv, 2, 1, 0},
    {"min", Op::Min, -1, 1, 1},       {"max", Op::Max, -1, 1, 1},
    {"jump", Op::Jump, 0, 0, 1},      {"jump_if_true_or_pop", Op::JumpIfTrueOrPop, 1, 0, 1},
    {"jump_if_false_or_pop", Op::JumpIfFalseOrPop, 1, 0, 1},
    {"pop_jump_if_false", Op::PopJumpIfFalse, 1, 0, 1},
};
// clang-format on

[[noreturn]] void bad_line(size_t line, std::string_view text, const std::string& why) {
  throw std::invalid_argument("heuristic program, line " + std::to_string(line) + " ('" + std::string(text) +
                              "'): " + why);
}

bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  u128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > std::numeric_limits<uint64_t>::max()) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// float.hex()'s text: [-]0x<h>.<hhh>p<+|->d, inf, -inf, nan. Exact (at most 16 hex digits).
bool parse_hex_float(std::string_view s, double* out) {
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (s == "inf") {
    *out = negative ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (s == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return !negative;
  }
  if (s.size() < 5 || s.substr(0, 2) != "0x") return false;
  s.remove_prefix(2);
  uint64_t mantissa = 0;
  int digits = 0, fraction_digits = 0;
  bool point = false;
  size_t i = 0;
  for (; i < s.size() && s[i] != 'p'; ++i) {
    if (s[i] == '.') {
      if (point) return false;
      point = true;
      continue;
    }
    const int d = hex_digit(s[i]);
    if (d < 0 || ++digits > 16) return false;
    mantissa = mantissa * 16 + static_cast<uint64_t>(d);
    fraction_digits += point;
  }
  if (digits == 0 || i + 1 >= s.size()) return false;
  std::string_view e = s.substr(i + 1);
  bool e_negative = false;
  if (e[0] == '+' || e[0] == '-') {
    e_negative = e[0] == '-';
    e.remove_prefix(1);
  }
  uint64_t exponent;
  if (!parse_u64(e, &exponent) || exponent > 100000) return false;
  const int exp = (e_negative ? -static_cast<int>(exponent) : static_cast<int>(exponent)) - 4 * fraction_digits;
  if (mantissa >> 53 != 0) return false;  // float.hex never gives more than 53 bits
  const double v = std::ldexp(static_cast<double>(mantissa), exp);
  *out = negative ? -v : v;
  return true;
}

// ---- values ----

enum class VK : uint8_t { None, Bool, Int, Float, Str, DType, Ptr, Other };

struct Val {
  VK k;
  bool torch;  // DType: torch's spelling
  DType dt;    // DType, Ptr
  uint32_t len;
  union {
    i128 i;  // Bool (0/1), Int
    double f;
    const char* s;
    uint64_t addr;
  };
};

Val make_int(i128 v) {
  Val r;
  r.k = VK::Int;
  r.i = v;
  return r;
}
Val make_bool(bool v) {
  Val r;
  r.k = VK::Bool;
  r.i = v;
  return r;
}
Val make_float(double v) {
  Val r;
  r.k = VK::Float;
  r.f = v;
  return r;
}
Val make_none() {
  Val r;
  r.k = VK::None;
  r.i = 0;
  return r;
}

Val from_arg(const ArgValue& a) {
  Val r;
  r.i = 0;
  switch (a.kind()) {
    case ArgValue::Kind::None: r.k = VK::None; break;
    case ArgValue::Kind::Bool: return make_bool(a.as_bool());
    case ArgValue::Kind::Int: return make_int(a.as_int());
    case ArgValue::Kind::UInt: return make_int(static_cast<i128>(a.as_uint()));
    case ArgValue::Kind::Float: return make_float(a.as_float());
    case ArgValue::Kind::String:
      r.k = VK::Str;
      r.s = a.as_string().data();
      r.len = static_cast<uint32_t>(a.as_string().size());
      break;
    case ArgValue::Kind::DType:
      r.k = VK::DType;
      r.dt = a.dtype();
      r.torch = a.is_torch_dtype();
      break;
    case ArgValue::Kind::Pointer:
      r.k = VK::Ptr;
      r.dt = a.dtype();
      r.addr = a.address();
      break;
    default: r.k = VK::Other; break;  // a tensor descriptor: only `is None` is modelled
  }
  return r;
}

bool is_intlike(const Val& v) { return v.k == VK::Bool || v.k == VK::Int; }
bool is_number(const Val& v) { return is_intlike(v) || v.k == VK::Float; }

// int -> float as Python converts: correctly rounded (every integer here is below 2^127, far
// from the float range's end).
bool to_double(const Val& v, double* out) {
  if (v.k == VK::Float) {
    *out = v.f;
    return true;
  }
  if (!is_intlike(v)) return false;
  *out = static_cast<double>(v.i);
  return true;
}

bool truth(const Val& v, bool* out) {
  switch (v.k) {
    case VK::None: *out = false; return true;
    case VK::Bool:
    case VK::Int: *out = v.i != 0; return true;
    case VK::Float: *out = v.f != 0.0; return true;  // NaN is true
    case VK::Str: *out = v.len != 0; return true;
    case VK::DType: *out = true; return true;
    default: return false;  // a tensor's truth depends on its contents
  }
}

// Exact comparison of an integer with a double, as Python does it: -1, 0, 1, or 2 when unordered.
int compare_int_float(i128 a, double f) {
  if (std::isnan(f)) return 2;
  constexpr double two127 = 170141183460469231731687303715884105728.0;
  if (f >= two127) return -1;
  if (f < -two127) return 1;
  const double fl = std::floor(f);
  const i128 fi = static_cast<i128>(fl);
  if (a < fi) return -1;
  if (a > fi) return 1;
  return f == fl ? 0 : -1;
}

// Three-way numeric comparison: -1, 0, 1, or 2 when unordered (NaN).
int compare_numbers(const Val& x, const Val& y) {
  if (is_intlike(x) && is_intlike(y)) return x.i < y.i ? -1 : x.i > y.i ? 1 : 0;
  if (is_intlike(x)) return compare_int_float(x.i, y.f);
  if (is_intlike(y)) {
    const int c = compare_int_float(y.i, x.f);
    return c == 2 ? 2 : -c;
  }
  if (std::isnan(x.f) || std::isnan(y.f)) return 2;
  return x.f < y.f ? -1 : x.f > y.f ? 1 : 0;
}

bool compare(Op op, const Val& x, const Val& y, bool* out) {
  int c;
  if (is_number(x) && is_number(y)) {
    c = compare_numbers(x, y);
  } else if (x.k == VK::Str && y.k == VK::Str) {
    const int m = std::memcmp(x.s, y.s, x.len < y.len ? x.len : y.len);
    c = m != 0 ? (m < 0 ? -1 : 1) : (x.len < y.len ? -1 : x.len > y.len ? 1 : 0);
  } else if (op != Op::Eq && op != Op::Ne) {
    return false;  // TypeError: '<' not supported between these
  } else if (x.k == VK::DType && !x.torch) {
    // tl.dtype.__eq__ answers first, whatever the other side: equal only to the same tl dtype.
    c = (y.k == VK::DType && !y.torch && y.dt == x.dt) ? 0 : 2;
  } else if (x.k == VK::Ptr || y.k == VK::Ptr || x.k == VK::Other || y.k == VK::Other) {
    return false;  // a tensor compares elementwise
  } else if (x.k == VK::None && y.k == VK::None) {
    c = 0;
  } else if (x.k == VK::DType && y.k == VK::DType) {
    c = (x.dt == y.dt && x.torch == y.torch) ? 0 : 2;
  } else {
    c = 2;  // different kinds are unequal
  }
  switch (op) {
    case Op::Eq: *out = c == 0; break;
    case Op::Ne: *out = c != 0; break;
    case Op::Lt: *out = c == -1; break;
    case Op::Le: *out = c == -1 || c == 0; break;
    case Op::Gt: *out = c == 1; break;
    default: *out = c == 1 || c == 0; break;
  }
  return true;
}

// CPython's float floor division and modulo (Objects/floatobject.c, _float_div_mod). w != 0.
void float_div_mod(double vx, double wx, double* floordiv, double* mod) {
  *mod = std::fmod(vx, wx);
  double div = (vx - *mod) / wx;
  if (*mod != 0.0) {
    if ((wx < 0) != (*mod < 0)) {
      *mod += wx;
      div -= 1.0;
    }
  } else {
    *mod = std::copysign(0.0, wx);
  }
  if (div != 0.0) {
    *floordiv = std::floor(div);
    if (div - *floordiv > 0.5) *floordiv += 1.0;
  } else {
    *floordiv = std::copysign(0.0, vx / wx);
  }
}

bool is_odd_integer(double y) { return std::fmod(std::fabs(y), 2.0) == 1.0; }

// CPython's float_pow; false where Python raises (ZeroDivisionError, OverflowError) or gives a
// complex number (a negative base to a fractional power).
bool float_pow(double x, double y, double* out) {
  if (y == 0.0) {
    *out = 1.0;
    return true;
  }
  if (std::isnan(x)) {
    *out = x;
    return true;
  }
  if (std::isnan(y)) {
    *out = x == 1.0 ? 1.0 : y;
    return true;
  }
  if (std::isinf(y)) {
    const double ax = std::fabs(x);
    if (ax == 1.0) {
      *out = 1.0;
    } else if ((y > 0.0) == (ax > 1.0)) {
      *out = std::fabs(y);
    } else {
      *out = 0.0;
    }
    return true;
  }
  const bool odd = is_odd_integer(y);
  if (std::isinf(x)) {
    if (y > 0.0) {
      *out = odd ? x : std::fabs(x);
    } else {
      *out = odd ? std::copysign(0.0, x) : 0.0;
    }
    return true;
  }
  if (x == 0.0) {
    if (y < 0.0) return false;  // ZeroDivisionError
    *out = odd ? x : 0.0;
    return true;
  }
  bool negate = false;
  if (x < 0.0) {
    if (y != std::floor(y)) return false;  // a complex result
    x = -x;
    negate = odd;
  }
  double r;
  if (x == 1.0) {
    r = 1.0;
  } else {
    r = std::pow(x, y);
    if (std::isinf(r)) return false;  // OverflowError
  }
  *out = negate ? -r : r;
  return true;
}

bool int_pow(i128 a, i128 b, i128* out) {
  // b >= 0
  if (a == 0) {
    *out = b == 0 ? 1 : 0;
    return true;
  }
  if (a == 1) {
    *out = 1;
    return true;
  }
  if (a == -1) {
    *out = (b & 1) ? -1 : 1;
    return true;
  }
  if (b >= 128) return false;
  i128 result = 1, base = a;
  for (i128 e = b;;) {
    if (e & 1) {
      if (__builtin_mul_overflow(result, base, &result)) return false;
    }
    e >>= 1;
    if (e == 0) break;
    if (__builtin_mul_overflow(base, base, &base)) return false;
  }
  *out = result;
  return true;
}

bool binary(Op op, const Val& x, const Val& y, Val* out) {
  if (is_intlike(x) && is_intlike(y)) {
    const i128 a = x.i, b = y.i;
    i128 r;
    switch (op) {
      case Op::Add:
        if (__builtin_add_overflow(a, b, &r)) return false;
        *out = make_int(r);
        return true;
      case Op::Sub:
        if (__builtin_sub_overflow(a, b, &r)) return false;
        *out = make_int(r);
        return true;
      case Op::Mul:
        if (__builtin_mul_overflow(a, b, &r)) return false;
        *out = make_int(r);
        return true;
      case Op::TrueDiv: {
        constexpr i128 limit = i128{1} << 53;  // both exact as doubles: one correctly rounded division
        if (b == 0 || a > limit || a < -limit || b > limit || b < -limit) return false;
        *out = make_float(static_cast<double>(static_cast<int64_t>(a)) / static_cast<double>(static_cast<int64_t>(b)));
        return true;
      }
      case Op::FloorDiv:
      case Op::Mod: {
        if (b == 0 || (a == kI128Min && b == -1)) return false;
        i128 q = a / b, m = a % b;
        if (m != 0 && ((m < 0) != (b < 0))) {
          q -= 1;
          m += b;
        }
        *out = make_int(op == Op::FloorDiv ? q : m);
        return true;
      }
      case Op::Pow: {
        if (b < 0) {
          double fx, fy, fr;
          if (!to_double(x, &fx) || !to_double(y, &fy) || !float_pow(fx, fy, &fr)) return false;
          *out = make_float(fr);
          return true;
        }
        if (!int_pow(a, b, &r)) return false;
        *out = make_int(r);
        return true;
      }
      case Op::LShift:
        if (b < 0) return false;  // ValueError
        if (a == 0) {
          *out = make_int(0);
          return true;
        }
        if (b >= 127) return false;
        r = static_cast<i128>(static_cast<u128>(a) << static_cast<int>(b));
        if ((r >> static_cast<int>(b)) != a) return false;
        *out = make_int(r);
        return true;
      case Op::RShift:
        if (b < 0) return false;
        *out = make_int(b >= 127 ? (a < 0 ? -1 : 0) : a >> static_cast<int>(b));
        return true;
      case Op::BitAnd:
      case Op::BitOr:
      case Op::BitXor:
        r = op == Op::BitAnd ? (a & b) : op == Op::BitOr ? (a | b) : (a ^ b);
        *out = (x.k == VK::Bool && y.k == VK::Bool) ? make_bool(r != 0) : make_int(r);
        return true;
      default: return false;
    }
  }
  if (!is_number(x) || !is_number(y)) return false;  // TypeError, or string arithmetic (not modelled)
  double a, b;
  if (!to_double(x, &a) || !to_double(y, &b)) return false;
  switch (op) {
    case Op::Add: *out = make_float(a + b); return true;
    case Op::Sub: *out = make_float(a - b); return true;
    case Op::Mul: *out = make_float(a * b); return true;
    case Op::TrueDiv:
      if (b == 0.0) return false;
      *out = make_float(a / b);
      return true;
    case Op::FloorDiv:
    case Op::Mod: {
      if (b == 0.0) return false;
      double q, m;
      float_div_mod(a, b, &q, &m);
      *out = make_float(op == Op::FloorDiv ? q : m);
      return true;
    }
    case Op::Pow: {
      double r;
      if (!float_pow(a, b, &r)) return false;
      *out = make_float(r);
      return true;
    }
    default: return false;  // shifts and bitwise operations on floats: TypeError
  }
}

bool unary(Op op, const Val& x, Val* out) {
  switch (op) {
    case Op::Neg:
      if (is_intlike(x)) {
        if (x.i == kI128Min) return false;
        *out = make_int(-x.i);
        return true;
      }
      if (x.k == VK::Float) {
        *out = make_float(-x.f);
        return true;
      }
      return false;
    case Op::Pos:
      if (is_intlike(x)) {
        *out = make_int(x.i);
        return true;
      }
      if (x.k == VK::Float) {
        *out = x;
        return true;
      }
      return false;
    case Op::Invert:
      if (!is_intlike(x)) return false;
      *out = make_int(~x.i);
      return true;
    case Op::Not:
    case Op::ToBool: {
      bool t;
      if (!truth(x, &t)) return false;
      *out = make_bool(op == Op::Not ? !t : t);
      return true;
    }
    case Op::IsNone: *out = make_bool(x.k == VK::None); return true;
    case Op::IsTrue: *out = make_bool(x.k == VK::Bool && x.i != 0); return true;
    case Op::IsFalse: *out = make_bool(x.k == VK::Bool && x.i == 0); return true;
    case Op::Abs:
      if (is_intlike(x)) {
        if (x.i == kI128Min) return false;
        *out = make_int(x.i < 0 ? -x.i : x.i);
        return true;
      }
      if (x.k == VK::Float) {
        *out = make_float(std::fabs(x.f));
        return true;
      }
      return false;
    case Op::ToInt: {
      if (is_intlike(x)) {
        *out = make_int(x.i);
        return true;
      }
      if (x.k != VK::Float || !std::isfinite(x.f)) return false;  // ValueError / OverflowError; strings
      const double t = std::trunc(x.f);
      constexpr double two127 = 170141183460469231731687303715884105728.0;
      if (t >= two127 || t < -two127) return false;
      *out = make_int(static_cast<i128>(t));
      return true;
    }
    case Op::ToFloat: {
      double d;
      if (!is_number(x) || !to_double(x, &d)) return false;
      *out = make_float(d);
      return true;
    }
    case Op::NextPowerOf2: {
      // triton.next_power_of_2, step by step: n -= 1; n |= n >> 1 ... n >> 32; n += 1.
      if (!is_intlike(x)) return false;  // a float fails at `>>`
      i128 n;
      if (__builtin_sub_overflow(x.i, i128{1}, &n)) return false;
      for (int s : {1, 2, 4, 8, 16, 32}) n |= n >> s;
      if (__builtin_add_overflow(n, i128{1}, &n)) return false;
      *out = make_int(n);
      return true;
    }
    case Op::DTypeOf: {
      if (x.k != VK::Ptr || torch_name(x.dt).empty()) return false;
      Val r;
      r.k = VK::DType;
      r.dt = x.dt;
      r.torch = true;
      r.i = 0;
      *out = r;
      return true;
    }
    case Op::ElementSize:
      if (x.k != VK::Ptr) return false;
      *out = make_int(dtype_size(x.dt));
      return true;
    default: return false;
  }
}

bool to_result(const Val& v, ArgValue* out) {
  switch (v.k) {
    case VK::None: *out = ArgValue::none(); return true;
    case VK::Bool: *out = ArgValue::boolean(v.i != 0); return true;
    case VK::Int:
      if (v.i < std::numeric_limits<int64_t>::min() || v.i > static_cast<i128>(std::numeric_limits<uint64_t>::max())) {
        return false;
      }
      *out = v.i < 0 ? ArgValue::integer(static_cast<int64_t>(v.i))
                     : ArgValue::unsigned_integer(static_cast<uint64_t>(v.i));
      return true;
    case VK::Float: *out = ArgValue::floating(v.f); return true;
    case VK::Str: *out = ArgValue::string(std::string_view(v.s, v.len)); return true;
    case VK::DType: *out = v.torch ? ArgValue::torch_dtype(v.dt) : ArgValue::triton_dtype(v.dt); return true;
    default: return false;  // a pointer is no constexpr: Python says so
  }
}

}  // namespace

HeuristicProgram HeuristicProgram::parse(std::string_view text) {
  HeuristicProgram p;
  p.text_ = std::string(text);
  std::string strings;
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  const std::string header = "heuristic-program " + std::to_string(kVersion);
  if (lines.empty() || lines[0] != header) {
    bad_line(1, lines.empty() ? std::string_view() : lines[0],
             "expected '" + header + "' (a program of another version or not a heuristic program)");
  }
  std::vector<int> pops;  // per instruction, values taken; -1: by count
  for (size_t n = 1; n < lines.size(); ++n) {
    const std::string_view line = lines[n];
    const size_t line_no = n + 1;
    std::vector<std::string_view> words;
    for (size_t start = 0; start <= line.size();) {
      size_t end = line.find(' ', start);
      if (end == std::string_view::npos) end = line.size();
      words.push_back(line.substr(start, end - start));
      start = end + 1;
    }
    if (words[0].empty()) bad_line(line_no, line, "empty instruction");
    const OpName* found = nullptr;
    for (const OpName& o : kOps) {
      if (o.name != words[0]) continue;
      // "int", "float" and "bool" name a constant with an operand and a conversion without one.
      const int operands = static_cast<int>(words.size()) - 1;
      if (o.operands == operands || (o.operands == -1 && operands <= 1)) {
        found = &o;
        break;
      }
    }
    if (found == nullptr) {
      bool known = false;
      for (const OpName& o : kOps) known |= o.name == words[0];
      bad_line(line_no, line, known ? "wrong number of operands" : "unknown instruction");
    }
    Insn in;
    in.op = found->op;
    switch (in.op) {
      case Op::Param: {
        uint64_t v;
        if (!parse_u64(words[1], &v) || v > 0xffffffffu) bad_line(line_no, line, "bad parameter index");
        in.a = static_cast<uint32_t>(v);
        p.params_read_.push_back(in.a);
        break;
      }
      case Op::Int: {
        std::string_view w = words[1];
        const bool negative = !w.empty() && w[0] == '-';
        if (negative) w.remove_prefix(1);
        uint64_t v;
        if (!parse_u64(w, &v) || (negative && v > (uint64_t{1} << 63))) {
          bad_line(line_no, line, "bad integer (the range is -2^63 to 2^64 - 1)");
        }
        in.bits = negative ? (~v + 1) : v;
        in.flag = !negative && v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        break;
      }
      case Op::Float: {
        double d;
        if (!parse_hex_float(words[1], &d)) bad_line(line_no, line, "bad float (expected float.hex() text)");
        std::memcpy(&in.bits, &d, sizeof d);
        break;
      }
      case Op::Bool:
        if (words[1] != "0" && words[1] != "1") bad_line(line_no, line, "bad bool (0 or 1)");
        in.bits = words[1] == "1";
        break;
      case Op::Str: {
        const std::string_view hex = words.size() > 1 ? words[1] : std::string_view();
        if (hex.size() % 2 != 0) bad_line(line_no, line, "bad string (an even number of hex digits)");
        in.bits = strings.size();
        in.a = static_cast<uint32_t>(hex.size() / 2);
        for (size_t i = 0; i < hex.size(); i += 2) {
          const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
          if (hi < 0 || lo < 0) bad_line(line_no, line, "bad string (hex digits expected)");
          strings.push_back(static_cast<char>(hi * 16 + lo));
        }
        break;
      }
      case Op::DType: {
        DType d;
        if (!parse_dtype(words[1], &d) || dtype_name(d) != words[1]) bad_line(line_no, line, "unknown dtype name");
        if (words[2] != "tl" && words[2] != "torch") bad_line(line_no, line, "the spelling is 'tl' or 'torch'");
        in.dtype = d;
        in.flag = words[2] == "torch";
        if (in.flag && torch_name(d).empty()) bad_line(line_no, line, "torch has no such dtype");
        break;
      }
      case Op::Min:
      case Op::Max: {
        uint64_t v;
        if (!parse_u64(words[1], &v) || v < 2 || v > kMaxStack) bad_line(line_no, line, "bad count (2 or more)");
        in.a = static_cast<uint32_t>(v);
        break;
      }
      case Op::Jump:
      case Op::JumpIfTrueOrPop:
      case Op::JumpIfFalseOrPop:
      case Op::PopJumpIfFalse: {
        uint64_t v;
        if (!parse_u64(words[1], &v) || v <= p.code_.size() || v > lines.size()) {
          bad_line(line_no, line, "bad jump target (jumps go forward, at most to the end)");
        }
        in.a = static_cast<uint32_t>(v);
        break;
      }
      default: break;
    }
    p.code_.push_back(in);
    pops.push_back(found->pops);
  }
  // The stack's depth before each instruction, the same on every path to it.
  const size_t count = p.code_.size();
  std::vector<int> depth(count + 1, -1);
  depth[0] = 0;
  for (size_t i = 0; i < count; ++i) {
    const Insn& in = p.code_[i];
    const size_t line_no = i + 2;
    const int d = depth[i];
    if (d < 0) bad_line(line_no, lines[i + 1], "unreachable instruction");
    const int take = pops[i] < 0 ? static_cast<int>(in.a) : pops[i];
    if (d < take) bad_line(line_no, lines[i + 1], "takes more values than the stack holds");
    auto flow = [&](size_t target, int value) {
      if (target > count) bad_line(line_no, lines[i + 1], "jump target past the end");
      if (depth[target] >= 0 && depth[target] != value) {
        bad_line(line_no, lines[i + 1], "the stack's depth differs between paths");
      }
      depth[target] = value;
    };
    switch (in.op) {
      case Op::Jump: flow(in.a, d); break;
      case Op::JumpIfTrueOrPop:
      case Op::JumpIfFalseOrPop:
        flow(in.a, d);
        flow(i + 1, d - 1);
        break;
      case Op::PopJumpIfFalse:
        flow(in.a, d - 1);
        flow(i + 1, d - 1);
        break;
      default: {
        const int next = d - take + 1;
        if (next > kMaxStack) bad_line(line_no, lines[i + 1], "the stack grows beyond its limit");
        flow(i + 1, next);
        break;
      }
    }
  }
  if (depth[count] != 1) {
    bad_line(count + 1, lines[count], "the program must end with exactly one value on the stack");
  }
  std::sort(p.params_read_.begin(), p.params_read_.end());
  p.params_read_.erase(std::unique(p.params_read_.begin(), p.params_read_.end()), p.params_read_.end());
  p.strings_ = std::make_shared<const std::string>(std::move(strings));
  return p;
}

HeuristicProgram::Outcome HeuristicProgram::evaluate(const ArgValue* args, size_t num_args,
                                                     ArgValue* result) const noexcept {
  Val stack[kMaxStack];
  int sp = 0;  // values on the stack; parse() proved every access in range
  const size_t count = code_.size();
  constexpr Outcome kPython = Outcome::NeedsPython;
  for (size_t pc = 0; pc < count;) {
    const Insn& in = code_[pc++];
    switch (in.op) {
      case Op::Param:
        if (in.a >= num_args) return kPython;
        stack[sp++] = from_arg(args[in.a]);
        break;
      case Op::Int:
        stack[sp++] = make_int(in.flag ? static_cast<i128>(in.bits) : static_cast<i128>(static_cast<int64_t>(in.bits)));
        break;
      case Op::Float: {
        double d;
        std::memcpy(&d, &in.bits, sizeof d);
        stack[sp++] = make_float(d);
        break;
      }
      case Op::Bool: stack[sp++] = make_bool(in.bits != 0); break;
      case Op::None: stack[sp++] = make_none(); break;
      case Op::Str: {
        Val v;
        v.k = VK::Str;
        v.s = strings_->data() + in.bits;
        v.len = in.a;
        stack[sp++] = v;
        break;
      }
      case Op::DType: {
        Val v;
        v.k = VK::DType;
        v.i = 0;
        v.dt = in.dtype;
        v.torch = in.flag;
        stack[sp++] = v;
        break;
      }
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::TrueDiv:
      case Op::FloorDiv:
      case Op::Mod:
      case Op::Pow:
      case Op::LShift:
      case Op::RShift:
      case Op::BitAnd:
      case Op::BitOr:
      case Op::BitXor:
        if (!binary(in.op, stack[sp - 2], stack[sp - 1], &stack[sp - 2])) return kPython;
        --sp;
        break;
      case Op::CDiv: {  // (x + y - 1) // y
        const Val x = stack[sp - 2], y = stack[sp - 1];
        Val t, u;
        if (!binary(Op::Add, x, y, &t) || !binary(Op::Sub, t, make_int(1), &u) ||
            !binary(Op::FloorDiv, u, y, &stack[sp - 2])) {
          return kPython;
        }
        --sp;
        break;
      }
      case Op::Eq:
      case Op::Ne:
      case Op::Lt:
      case Op::Le:
      case Op::Gt:
      case Op::Ge: {
        bool r;
        if (!compare(in.op, stack[sp - 2], stack[sp - 1], &r)) return kPython;
        stack[sp - 2] = make_bool(r);
        --sp;
        break;
      }
      case Op::Min:
      case Op::Max: {
        // Python keeps the first of equal elements: an item replaces the best only when strictly
        // less (min) or greater (max).
        const int n = static_cast<int>(in.a);
        Val best = stack[sp - n];
        for (int i = sp - n + 1; i < sp; ++i) {
          bool better;
          if (!compare(in.op == Op::Min ? Op::Lt : Op::Gt, stack[i], best, &better)) return kPython;
          if (better) best = stack[i];
        }
        sp -= n;
        stack[sp++] = best;
        break;
      }
      case Op::Jump: pc = in.a; break;
      case Op::JumpIfTrueOrPop:
      case Op::JumpIfFalseOrPop: {
        bool t;
        if (!truth(stack[sp - 1], &t)) return kPython;
        if (t == (in.op == Op::JumpIfTrueOrPop)) {
          pc = in.a;
        } else {
          --sp;
        }
        break;
      }
      case Op::PopJumpIfFalse: {
        bool t;
        if (!truth(stack[--sp], &t)) return kPython;
        if (!t) pc = in.a;
        break;
      }
      default:
        if (!unary(in.op, stack[sp - 1], &stack[sp - 1])) return kPython;
        break;
    }
  }
  return to_result(stack[0], result) ? Outcome::Value : kPython;
}

}  // namespace triton_jit::detail
