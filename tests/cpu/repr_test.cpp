// detail::python_float_repr and python_str_repr against Python's own repr(), called through the
// embedded interpreter. Constexpr values reach Triton's signature and key strings through them.
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "key/repr.h"

namespace py = pybind11;
using triton_jit::detail::python_float_repr;
using triton_jit::detail::python_str_repr;

namespace {

std::vector<std::string> python_float_reprs(const std::vector<double>& values) {
  triton_jit::bridge::GilGuard gil;
  py::object repr = py::module_::import("builtins").attr("repr");
  std::vector<std::string> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(repr(py::float_(v)).cast<std::string>());
  return out;
}

std::vector<std::string> python_str_reprs(const std::vector<std::string>& values) {
  triton_jit::bridge::GilGuard gil;
  py::object repr = py::module_::import("builtins").attr("repr");
  std::vector<std::string> out;
  for (const std::string& v : values) out.push_back(repr(py::str(v.data(), v.size())).cast<std::string>());
  return out;
}

void expect_float_reprs(const std::vector<double>& values) {
  const std::vector<std::string> expected = python_float_reprs(values);
  int mismatches = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string ours = python_float_repr(values[i]);
    if (ours == expected[i]) continue;
    if (++mismatches <= 20) {
      char bits[32];
      uint64_t b;
      std::memcpy(&b, &values[i], sizeof b);
      std::snprintf(bits, sizeof bits, "0x%016llx", static_cast<unsigned long long>(b));
      ADD_FAILURE() << "bits " << bits << ": C++ " << ours << ", Python " << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << values.size();
}

TEST(PythonFloatRepr, Specials) {
  const double inf = std::numeric_limits<double>::infinity();
  // A table laid out by hand.
  // clang-format off
  expect_float_reprs({0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 1e20, 1e-5, 1e-4, 1e-3, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
                      0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 123456789.0, 1234567890123456.0, 12345678901234567.0, 5e-324,
                      1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, inf, -inf,
                      std::nan(""), -std::nan(""), 9007199254740993.0, 100.0, 1e100, 123.456, 4.35, 0.000123,
                      99999999999999990.0, 9999999999999998.0, 0.30000000000000004});
  // clang-format on
}

TEST(PythonFloatRepr, RandomDoubles) {
  std::mt19937_64 rng(20240601);
  std::vector<double> values;
  for (int i = 0; i < 60000; ++i) {
    double v;
    switch (i % 4) {
      case 0: {
        const uint64_t bits = rng();
        std::memcpy(&v, &bits, sizeof v);
        break;
      }
      case 1: v = std::uniform_real_distribution<double>(-1e6, 1e6)(rng); break;
      case 2:
        v = static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000) *
            std::pow(10.0, static_cast<double>(static_cast<int>(rng() % 61) - 30));
        break;
      default:
        v = std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(rng), static_cast<int>(rng() % 2100) - 1074);
    }
    values.push_back(v);
  }
  expect_float_reprs(values);
}

// Exact powers of two have an asymmetric rounding interval: the correctly rounded p-digit string
// may not read back while another p-digit string does, and Python prints that one.
TEST(PythonFloatRepr, PowersOfTwo) {
  std::vector<double> values;
  for (int e = -1074; e <= 1023; ++e) {
    values.push_back(std::ldexp(1.0, e));
    values.push_back(-std::ldexp(1.0, e));
  }
  expect_float_reprs(values);
}

void expect_str_reprs(const std::vector<std::string>& values) {
  const std::vector<std::string> expected = python_str_reprs(values);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(python_str_repr(values[i]), expected[i]) << "string #" << i;
  }
}

TEST(PythonStrRepr, TrickyStrings) {
  // A table laid out by hand.
  // clang-format off
  expect_str_reprs({"", "abc", "it's", "say \"hi\"", "both ' and \"", "back\\slash", "\\", "'", "\"", "''", "\"\"",
                    "new\nline", "tab\there", "cr\rlf\n", std::string("nul\0byte", 8), "\x01\x02\x1f", "\x7f",
                    "esc\x1b[0m", "caf\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80 emoji",
                    "combining e\xcc\x81", "  spaces  ", "{format} %s", "a'b\"c\\d\ne"});
  // clang-format on
}

TEST(PythonStrRepr, RandomStrings) {
  static const char* const kPool[] = {"a",
                                      "Z",
                                      "0",
                                      " ",
                                      "'",
                                      "\"",
                                      "\\",
                                      "\n",
                                      "\t",
                                      "\r",
                                      "\x1b",
                                      "\x7f",
                                      "\x01",
                                      "\x1f",
                                      "\xc3\xa9",
                                      "\xce\xbb",
                                      "\xf0\x9f\x98\x80",
                                      "~",
                                      "`"};
  std::mt19937_64 rng(7);
  std::vector<std::string> values;
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const size_t n = rng() % 12;
    for (size_t j = 0; j < n; ++j) s += kPool[rng() % std::size(kPool)];
    values.push_back(s);
  }
  expect_str_reprs(values);
}

// Beyond ASCII, Python escapes what str.isprintable() rejects (separators, format and control
// characters, private use) and prints the rest as it is.
TEST(PythonStrRepr, NonPrintableUnicodeIsEscaped) {
  // A table laid out by hand.
  // clang-format off
  expect_str_reprs({"ideo\xe3\x80\x80sp", "pua\xee\x80\x80", "tag\xf3\xa0\x80\x81", "ogham\xe1\x9a\x80",
                    "caf\xc3\xa9", "\xe4\xb8\xad\xe6\x96\x87", "\xf0\x9f\x98\x80", "nb\xc2\xa0sp", "nel\xc2\x85", "ls\xe2\x80\xa8", "zw\xe2\x80\x8bsp", "bom\xef\xbb\xbf",
                    "shy\xc2\xad"});
  // clang-format on
}

}  // namespace
