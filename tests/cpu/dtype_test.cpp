// dtype_name/parse_dtype; parse_dtype against Triton's own table of names
// (type_canonicalisation_dict).
#include <gtest/gtest.h>
#include <pybind11/pybind11.h>

#include <string>

#include "bridge/interpreter.h"
#include "triton_jit/dtype.h"

namespace py = pybind11;

namespace {

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < triton_jit::kNumDTypes; ++i) {
    const auto d = static_cast<triton_jit::DType>(i);
    triton_jit::DType parsed;
    ASSERT_TRUE(triton_jit::parse_dtype(triton_jit::dtype_name(d), &parsed)) << triton_jit::dtype_name(d);
    EXPECT_EQ(parsed, d);
  }
  triton_jit::DType d;
  EXPECT_FALSE(triton_jit::parse_dtype("", &d));
  EXPECT_FALSE(triton_jit::parse_dtype("fp128", &d));
  EXPECT_FALSE(triton_jit::parse_dtype("*fp16", &d));
  EXPECT_FALSE(triton_jit::parse_dtype("void", &d));
}

TEST(DType, EveryNameTritonAccepts) {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();  // imports triton
  py::dict names = py::module_::import("triton.runtime.jit").attr("type_canonicalisation_dict");
  int checked = 0;
  for (auto item : names) {
    const std::string name = py::str(item.first);
    const std::string canonical = py::str(item.second);
    if (canonical == "void") continue;
    SCOPED_TRACE(name);
    triton_jit::DType d;
    ASSERT_TRUE(triton_jit::parse_dtype(name, &d));
    EXPECT_EQ(triton_jit::dtype_name(d), canonical);
    ++checked;
  }
  EXPECT_GE(checked, triton_jit::kNumDTypes);
}

}  // namespace
