// triton_jit_ops from C++: the operators called through the dispatcher (as any libtorch user or
// TorchScript does), against ATen's own operators. Schema, Meta-kernel and bad-input tests run
// everywhere (meta tensors need no GPU; CPU tensors must be refused); the CUDA tests skip without
// a GPU.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// --- the operators, through the dispatcher ---------------------------------------------------

c10::OperatorHandle handle(const char* name) { return c10::Dispatcher::singleton().findSchemaOrThrow(name, ""); }

at::Tensor op_add(const at::Tensor& a, const at::Tensor& b, const c10::Scalar& alpha = 1) {
  static const auto op =
      handle("triton_jit_ops::add").typed<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::Scalar&)>();
  return op.call(a, b, alpha);
}

at::Tensor op_sum(const at::Tensor& x, at::OptionalIntArrayRef dim = std::nullopt, bool keepdim = false,
                  std::optional<at::ScalarType> dtype = std::nullopt) {
  static const auto op =
      handle("triton_jit_ops::sum")
          .typed<at::Tensor(const at::Tensor&, at::OptionalIntArrayRef, bool, std::optional<at::ScalarType>)>();
  return op.call(x, dim, keepdim, dtype);
}

at::Tensor op_softmax(const at::Tensor& x, int64_t dim) {
  static const auto op = handle("triton_jit_ops::softmax").typed<at::Tensor(const at::Tensor&, int64_t)>();
  return op.call(x, dim);
}

at::Tensor op_matmul(const at::Tensor& a, const at::Tensor& b, bool ta = false, bool tb = false) {
  static const auto op =
      handle("triton_jit_ops::matmul").typed<at::Tensor(const at::Tensor&, const at::Tensor&, bool, bool)>();
  return op.call(a, b, ta, tb);
}

at::TensorOptions meta(at::ScalarType t = at::kFloat) { return at::TensorOptions().device(at::kMeta).dtype(t); }
at::TensorOptions cuda(at::ScalarType t = at::kFloat) { return at::TensorOptions().device(at::kCUDA).dtype(t); }

// `fn` throws a c10::Error (a RuntimeError / IndexError in Python) whose message holds `needle`.
void expect_error(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const c10::Error& e) {
    const std::string msg = e.what_without_backtrace();
    EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a std::exception that is no c10::Error: " << e.what();
  }
}

#define REQUIRE_CUDA()                                                                     \
  do {                                                                                     \
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU: the kernels need one"; \
  } while (0)

void expect_close(const at::Tensor& out, const at::Tensor& ref, double rtol, double atol) {
  ASSERT_EQ(out.sizes(), ref.sizes());
  ASSERT_EQ(out.scalar_type(), ref.scalar_type());
  ASSERT_EQ(out.device(), ref.device());
  if (out.numel() == 0) return;
  const at::Tensor o = out.to(at::kDouble).cpu(), r = ref.to(at::kDouble).cpu();
  const bool ok = at::allclose(o, r, rtol, atol, /*equal_nan=*/true);
  EXPECT_TRUE(ok) << "max abs diff " << (o - r).abs().nan_to_num(0).max().item<double>() << " (rtol " << rtol
                  << ", atol " << atol << ")";
}

double tol(at::ScalarType t) {
  switch (t) {
    case at::kHalf: return 1e-2;
    case at::kBFloat16: return 2e-2;
    case at::kFloat: return 1e-5;
    case at::kDouble: return 1e-12;
    default: return 0;
  }
}

// --- schemas and registration (no GPU) --------------------------------------------------------

TEST(TorchOpsSchema, AllRegistered) {
  const std::vector<std::pair<const char*, const char*>> expected = {
      {"triton_jit_ops::add", "triton_jit_ops::add(Tensor a, Tensor b, *, Scalar alpha=1) -> Tensor"},
      {"triton_jit_ops::sum",
       "triton_jit_ops::sum(Tensor x, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"},
      {"triton_jit_ops::softmax", "triton_jit_ops::softmax(Tensor x, int dim) -> Tensor"},
      {"triton_jit_ops::matmul",
       "triton_jit_ops::matmul(Tensor a, Tensor b, bool transpose_a=False, bool transpose_b=False) -> Tensor"},
  };
  for (const auto& [name, schema] : expected) {
    std::ostringstream os;
    os << handle(name).schema();
    EXPECT_EQ(os.str(), schema);
    EXPECT_TRUE(handle(name).hasKernelForDispatchKey(c10::DispatchKey::CUDA)) << name;
    EXPECT_TRUE(handle(name).hasKernelForDispatchKey(c10::DispatchKey::Meta)) << name;
    EXPECT_FALSE(handle(name).hasKernelForDispatchKey(c10::DispatchKey::CPU)) << name;
  }
  EXPECT_TRUE(handle("triton_jit_ops::matmul").hasKernelForDispatchKey(c10::DispatchKey::Autograd));

  // The namespace holds exactly the operators torch/ops/CMakeLists.txt builds (TRITON_JIT_OPS),
  // and the table above covers each of them.
  std::set<std::string> built, registered, listed;
  std::istringstream names(TRITON_JIT_OPS_BUILT);
  for (std::string name; std::getline(names, name, ',');) built.insert("triton_jit_ops::" + name);
  for (const c10::OperatorName& op : c10::Dispatcher::singleton().getAllOpNames()) {
    if (op.name.rfind("triton_jit_ops::", 0) == 0 && c10::Dispatcher::singleton().findSchema(op)) {
      registered.insert(op.name);
    }
  }
  for (const auto& entry : expected) listed.insert(entry.first);
  EXPECT_EQ(registered, built);
  EXPECT_EQ(listed, built);
}

TEST(TorchOpsSchema, UnknownOperatorIsAnError) { EXPECT_THROW(handle("triton_jit_ops::no_such_op"), c10::Error); }

// --- Meta kernels: shapes and dtypes (no GPU) -----------------------------------------------

TEST(TorchOpsMeta, AddBroadcastAndPromotion) {
  struct Case {
    std::vector<int64_t> a, b;
    at::ScalarType ta, tb;
  };
  const std::vector<Case> cases = {
      {{3, 5}, {3, 5}, at::kFloat, at::kFloat}, {{3, 1}, {1, 5}, at::kHalf, at::kHalf},
      {{5}, {4, 1, 5}, at::kHalf, at::kFloat},  {{}, {2, 3}, at::kInt, at::kLong},
      {{0, 3}, {1, 3}, at::kBool, at::kInt},    {{2, 1, 3, 1, 5}, {1, 4, 1}, at::kBFloat16, at::kBFloat16},
      {{7}, {7}, at::kInt, at::kHalf},          {{}, {}, at::kDouble, at::kDouble},
  };
  for (const Case& c : cases) {
    const at::Tensor a = at::empty(c.a, meta(c.ta)), b = at::empty(c.b, meta(c.tb));
    const at::Tensor out = op_add(a, b, 2);
    const at::Tensor ref = at::add(a, b, 2);
    EXPECT_EQ(out.sizes(), ref.sizes());
    EXPECT_EQ(out.scalar_type(), ref.scalar_type());
    EXPECT_TRUE(out.is_meta());
  }
}

TEST(TorchOpsMeta, SumEachDimKeepdimAndDtype) {
  const at::Tensor x = at::empty({2, 3, 4, 5}, meta(at::kHalf));
  for (int64_t d = -4; d < 4; ++d) {
    for (bool keepdim : {false, true}) {
      const at::Tensor out = op_sum(x, at::IntArrayRef{d}, keepdim);
      const at::Tensor ref = at::sum(x, {d}, keepdim);
      EXPECT_EQ(out.sizes(), ref.sizes()) << "dim " << d << " keepdim " << keepdim;
      EXPECT_EQ(out.scalar_type(), at::kHalf);
    }
  }
  EXPECT_EQ(op_sum(x).dim(), 0);
  EXPECT_EQ(op_sum(x, std::nullopt, false, at::kFloat).scalar_type(), at::kFloat);
  // torch.sum: integer and bool inputs give int64.
  EXPECT_EQ(op_sum(at::empty({3, 4}, meta(at::kInt)), at::IntArrayRef{1}).scalar_type(), at::kLong);
  EXPECT_EQ(op_sum(at::empty({3, 4}, meta(at::kBool))).scalar_type(), at::kLong);
}

TEST(TorchOpsMeta, SoftmaxKeepsShapeAndDtype) {
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const at::Tensor x = at::empty({3, 7, 5}, meta(t));
    for (int64_t d = -3; d < 3; ++d) {
      const at::Tensor out = op_softmax(x, d);
      EXPECT_EQ(out.sizes(), x.sizes());
      EXPECT_EQ(out.scalar_type(), t);
    }
  }
}

TEST(TorchOpsMeta, MatmulShapesWithTransposes) {
  const int64_t m = 5, k = 7, n = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const at::Tensor a = ta ? at::empty({k, m}, meta()) : at::empty({m, k}, meta());
      const at::Tensor b = tb ? at::empty({n, k}, meta()) : at::empty({k, n}, meta());
      const at::Tensor out = op_matmul(a, b, ta, tb);
      EXPECT_EQ(out.sizes(), (std::vector<int64_t>{m, n})) << "ta " << ta << " tb " << tb;
      EXPECT_EQ(out.scalar_type(), at::kFloat);
    }
  }
  EXPECT_EQ(op_matmul(at::empty({0, 4}, meta(at::kHalf)), at::empty({4, 3}, meta(at::kHalf))).sizes(),
            (std::vector<int64_t>{0, 3}));
}

TEST(TorchOpsMeta, MatmulBackwardShapes) {
  const at::Tensor a = at::empty({4, 8}, meta()).requires_grad_();
  const at::Tensor b = at::empty({3, 8}, meta()).requires_grad_();
  const at::Tensor out = op_matmul(a, b, false, true);
  ASSERT_TRUE(out.requires_grad());
  out.backward(at::empty({4, 3}, meta()));
  ASSERT_TRUE(a.grad().defined() && b.grad().defined());
  EXPECT_EQ(a.grad().sizes(), a.sizes());
  EXPECT_EQ(b.grad().sizes(), b.sizes());
}

TEST(TorchOpsMeta, BoxedCall) {
  // The boxed path (what Python and TorchScript use).
  torch::jit::Stack stack{at::empty({2, 3}, meta()), at::empty({3}, meta()), c10::Scalar(3)};
  handle("triton_jit_ops::add").callBoxed(&stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].toTensor().sizes(), (std::vector<int64_t>{2, 3}));
}

// --- bad inputs (no GPU) ------------------------------------------------------------------------

TEST(TorchOpsErrors, CpuTensorsAreRefused) {
  const at::Tensor x = at::ones({3, 4}), y = at::ones({4, 5});
  expect_error([&] { op_add(x, x); }, "triton_jit_ops::add");
  expect_error([&] { op_add(x, x); }, "CPU");
  expect_error([&] { op_sum(x, at::IntArrayRef{1}); }, "CPU");
  expect_error([&] { op_sum(x); }, "triton_jit_ops::sum");
  expect_error([&] { op_softmax(x, 1); }, "CPU");
  expect_error([&] { op_matmul(x, y); }, "CPU");
  expect_error([&] { op_matmul(x.clone().requires_grad_(), y); }, "triton_jit_ops::matmul");
}

TEST(TorchOpsErrors, AddShapesAndDtypes) {
  expect_error([] { op_add(at::empty({3, 4}, meta()), at::empty({5}, meta())); }, "size");
  expect_error([] { op_add(at::empty({4}, meta(at::kComplexFloat)), at::empty({4}, meta(at::kComplexFloat))); },
               "dtype");
  expect_error([] { op_add(at::empty({4}, meta(at::kInt)), at::empty({4}, meta(at::kInt)), 0.5); }, "alpha");
}

TEST(TorchOpsErrors, DimOutOfRange) {
  const at::Tensor x = at::empty({3, 4}, meta());
  for (int64_t d : {2, -3, 100}) {
    expect_error([&] { op_sum(x, at::IntArrayRef{d}); }, "im");  // "Dimension out of range"
    expect_error([&] { op_softmax(x, d); }, "im");
  }
  // The C++ class of torch's out-of-range error (IndexError in Python) is a c10::Error too.
  EXPECT_THROW(op_softmax(x, 5), c10::Error);
}

TEST(TorchOpsErrors, UnsupportedDtypes) {
  expect_error([] { op_softmax(at::empty({3, 4}, meta(at::kInt)), 1); }, "float16");
  expect_error([] { op_softmax(at::empty({3, 4}, meta(at::kComplexFloat)), 1); }, "triton_jit_ops::softmax");
  expect_error([] { op_sum(at::empty({3}, meta(at::kComplexFloat))); }, "dtype");
  expect_error(
      [] {
        op_matmul(at::empty({3, 4}, meta(at::kInt)), at::empty({4, 5}, meta(at::kInt)));
      },
      "triton_jit_ops::matmul");
}

TEST(TorchOpsErrors, MatmulMismatch) {
  expect_error([] { op_matmul(at::empty({3, 4}, meta()), at::empty({5, 6}, meta())); }, "triton_jit_ops::matmul");
  expect_error([] { op_matmul(at::empty({3, 4}, meta()), at::empty({4, 6}, meta()), true, false); }, "matmul");
  expect_error([] { op_matmul(at::empty({3, 4}, meta()), at::empty({4, 6}, meta(at::kHalf))); }, "dtype");
  expect_error([] { op_matmul(at::empty({4}, meta()), at::empty({4, 6}, meta())); }, "2-D");
  expect_error([] { op_matmul(at::empty({2, 3, 4}, meta()), at::empty({4, 6}, meta())); }, "2-D");
}

// --- CUDA: results against ATen ---------------------------------------------------------------

TEST(TorchOpsCuda, AddAcrossDtypesAndShapes) {
  REQUIRE_CUDA();
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {1}, {7}, {33, 17}, {4, 5, 6, 7}, {(1 << 20) + 3}};
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16, at::kDouble}) {
    for (const auto& s : shapes) {
      const at::Tensor a = at::randn(s, cuda(t)), b = at::randn(s, cuda(t));
      expect_close(op_add(a, b), at::add(a, b), tol(t), tol(t));
      expect_close(op_add(a, b, 2.5), at::add(a, b, 2.5), tol(t), tol(t));
    }
  }
  for (at::ScalarType t : {at::kInt, at::kLong, at::kByte, at::kBool}) {
    const at::Tensor a = at::randint(0, 2, {1000}, cuda(t)), b = at::randint(0, 2, {1000}, cuda(t));
    expect_close(op_add(a, b), at::add(a, b), 0, 0);
  }
}

TEST(TorchOpsCuda, AddBroadcastAndViews) {
  REQUIRE_CUDA();
  const at::Tensor a = at::randn({5, 1, 7}, cuda()), b = at::randn({4, 1}, cuda(at::kHalf));
  expect_close(op_add(a, b, -2), at::add(a, b, -2), 1e-5, 1e-5);
  const at::Tensor x = at::randn({40, 30}, cuda());
  expect_close(op_add(x.t(), x.t()), x.t() * 2, 1e-6, 1e-6);
  expect_close(op_add(x.slice(1, 0, 30, 3), x.slice(1, 1, 30, 3)), at::add(x.slice(1, 0, 30, 3), x.slice(1, 1, 30, 3)),
               1e-6, 1e-6);
}

TEST(TorchOpsCuda, SumEachDim) {
  REQUIRE_CUDA();
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const at::Tensor x = at::randn({6, 33, 5, 129}, cuda(t));
    const at::Tensor x64 = x.to(at::kDouble);
    for (int64_t d = -4; d < 4; ++d) {
      for (bool keepdim : {false, true}) {
        const double n = static_cast<double>(x.size(d));
        expect_close(op_sum(x, at::IntArrayRef{d}, keepdim), at::sum(x64, {d}, keepdim).to(t), tol(t),
                     tol(t) * std::sqrt(n));
      }
    }
    expect_close(op_sum(x), at::sum(x64).to(t), tol(t), tol(t) * std::sqrt(static_cast<double>(x.numel())));
  }
  const at::Tensor i = at::randint(-100, 100, {1000, 37}, cuda(at::kInt));
  expect_close(op_sum(i, at::IntArrayRef{0}), at::sum(i, {0}), 0, 0);
  expect_close(op_sum(i), at::sum(i), 0, 0);
  const at::Tensor h = at::ones({4096}, cuda(at::kHalf));
  EXPECT_EQ(op_sum(h).item<double>(), 4096.0);  // fp32 accumulation
  expect_close(op_sum(h, std::nullopt, false, at::kFloat), at::full({}, 4096.0, cuda()), 0, 0);
}

TEST(TorchOpsCuda, Softmax) {
  REQUIRE_CUDA();
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16}) {
    for (const std::vector<int64_t>& s :
         std::vector<std::vector<int64_t>>{{7}, {33, 17}, {4, 5, 6}, {3, 20000}, {0, 4}}) {
      const at::Tensor x = at::randn(s, cuda(t)) * 3;
      for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
        expect_close(op_softmax(x, d), at::softmax(x.to(at::kFloat), d).to(t), t == at::kFloat ? 1e-5 : tol(t),
                     t == at::kFloat ? 1e-6 : tol(t));
      }
    }
  }
}

TEST(TorchOpsCuda, MatmulAcrossDtypesShapesTransposes) {
  REQUIRE_CUDA();
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1},       {3, 5, 7},       {33, 17, 65},
                                                      {127, 255, 129}, {512, 384, 256}, {4, 0, 3}};
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16}) {
    for (const auto& [m, k, n] : shapes) {
      const at::Tensor a = (at::randn({m, k}, cuda()) / std::sqrt(static_cast<double>(std::max<int64_t>(k, 1)))).to(t);
      const at::Tensor b = at::randn({k, n}, cuda(t));
      const at::Tensor ref = at::matmul(a.to(at::kDouble), b.to(at::kDouble)).to(t);
      const double tl = t == at::kBFloat16 ? 3e-2 : 1e-2;
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          const at::Tensor aa = ta ? a.t().contiguous() : a, bb = tb ? b.t().contiguous() : b;
          expect_close(op_matmul(aa, bb, ta, tb), ref, tl, tl);
        }
      }
      expect_close(op_matmul(a, b.t().contiguous().t()), ref, tl, tl);  // a strided view, no flag
    }
  }
}

TEST(TorchOpsCuda, MatmulGradientsMatchAutograd) {
  REQUIRE_CUDA();
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t m = 33, k = 40, n = 17;
      const at::Tensor a0 = ta ? at::randn({k, m}, cuda()) : at::randn({m, k}, cuda());
      const at::Tensor b0 = tb ? at::randn({n, k}, cuda()) : at::randn({k, n}, cuda());
      const at::Tensor a = a0.clone().requires_grad_(), b = b0.clone().requires_grad_();
      const at::Tensor ar = a0.to(at::kDouble).requires_grad_(), br = b0.to(at::kDouble).requires_grad_();
      const at::Tensor out = op_matmul(a, b, ta, tb);
      const at::Tensor ref = at::matmul(ta ? ar.t() : ar, tb ? br.t() : br);
      const at::Tensor grad = at::randn({m, n}, cuda());
      out.backward(grad);
      ref.backward(grad.to(at::kDouble));
      expect_close(out, ref.detach().to(at::kFloat), 1e-2, 2e-2);
      expect_close(a.grad(), ar.grad().to(at::kFloat), 1e-2, 2e-2);
      expect_close(b.grad(), br.grad().to(at::kFloat), 1e-2, 2e-2);
    }
  }
}

TEST(TorchOpsCuda, BadInputsOnCuda) {
  REQUIRE_CUDA();
  const at::Tensor g = at::randn({3, 4}, cuda());
  expect_error([&] { op_add(g, at::ones({3, 4})); }, "device");
  expect_error([&] { op_matmul(g, at::ones({4, 5})); }, "device");
  expect_error([&] { op_matmul(g, at::randn({5, 4}, cuda())); }, "triton_jit_ops::matmul");
  expect_error([&] { op_softmax(g, 2); }, "im");
  expect_error([&] { op_softmax(g.to(at::kDouble), 1); }, "float16");
  expect_error([&] { op_add(at::randn({4}, cuda(at::kComplexFloat)), at::randn({4}, cuda(at::kComplexFloat))); },
               "dtype");
  // Still working afterwards.
  expect_close(op_add(g, g), g * 2, 1e-6, 1e-6);
}

}  // namespace
