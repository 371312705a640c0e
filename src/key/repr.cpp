#include "key/repr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace triton_jit::detail {

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest digits that read back to the same double (closest to it on ties), as Python's repr;
  // then Python's layout: fixed notation when -4 <= exponent < 16.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(value), std::chars_format::scientific);
  std::string s(buf, res.ptr);
  const size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exponent + 1) {
      out = digits + std::string(static_cast<size_t>(exponent + 1) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exponent + 1)) + "." +
            digits.substr(static_cast<size_t>(exponent + 1));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  }
  return value < 0 ? "-" + out : out;
}

namespace {

// Code points Python's str.isprintable() rejects beyond ASCII: the categories Cc, Cf, Zs (but
// space), Zl, Zp, Cs and Co. Unassigned code points (Cn) are taken as printable.
bool is_unicode_nonprintable(uint32_t c) {
  static constexpr uint32_t kRanges[][2] = {
      {0x80, 0xa0},        {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},     {0x6dd, 0x6dd},
      {0x70f, 0x70f},      {0x890, 0x891},     {0x8e2, 0x8e2},     {0x1680, 0x1680},   {0x180e, 0x180e},
      {0x2000, 0x200f},    {0x2028, 0x202f},   {0x205f, 0x2064},   {0x2066, 0x206f},   {0x3000, 0x3000},
      {0xd800, 0xf8ff},    {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
      {0x13430, 0x1343f},  {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
      {0xf0000, 0x10ffff},
  };
  for (const auto& r : kRanges) {
    if (c >= r[0] && c <= r[1]) return true;
  }
  return false;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, 0 if malformed.
size_t decode_utf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t c = b & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    const auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xc0) != 0x80) return 0;
    c = (c << 6) | (t & 0x3f);
  }
  *cp = c;
  return len;
}

}  // namespace

std::string python_str_repr(std::string_view value) {
  bool has_single = value.find('\'') != std::string_view::npos;
  bool has_double = value.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      uint32_t cp = 0;
      const size_t len = decode_utf8(value, i, &cp);
      if (len == 0) {
        out += static_cast<char>(c);  // not UTF-8: Python could not hold it; keep the byte
        continue;
      }
      if (is_unicode_nonprintable(cp)) {
        char buf[16];
        if (cp <= 0xff) {
          std::snprintf(buf, sizeof buf, "\\x%02x", cp);
        } else if (cp <= 0xffff) {
          std::snprintf(buf, sizeof buf, "\\u%04x", cp);
        } else {
          std::snprintf(buf, sizeof buf, "\\U%08x", cp);
        }
        out += buf;
      } else {
        out.append(value.data() + i, len);
      }
      i += len - 1;
      continue;
    }
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += quote;
  return out;
}

std::string python_dtype_repr(DType dtype, bool torch) {
  const std::string_view name = torch ? torch_name(dtype) : triton_language_name(dtype);
  if (name.empty()) return {};
  return (torch ? "torch." : "triton.language.") + std::string(name);
}

bool parse_python_dtype(std::string_view text, DType* dtype, bool* torch) {
  std::string_view name;
  bool is_torch = false;
  for (const std::string_view prefix : {"triton.language.", "tl.", "torch."}) {
    if (text.substr(0, prefix.size()) == prefix) {
      name = text.substr(prefix.size());
      is_torch = prefix == "torch.";
      break;
    }
  }
  if (name.empty()) return false;
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    if (name == (is_torch ? torch_name(d) : triton_language_name(d))) {
      *dtype = d;
      *torch = is_torch;
      return true;
    }
  }
  return false;
}

}  // namespace triton_jit::detail
