// Heuristic programs (src/decorators/heuristic_program.h): every @triton.heuristics value of
// tests/kernels/heuristics.py is translated by the bridge and evaluated in C++ over thousands of
// random argument tuples, against Python's own evaluation of the same lambda
// (tests/support/heuristics_reference.py); the translator's refusals, the Python fallback
// (bridge::call_heuristic) and the program parser's errors.
#include <gtest/gtest.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/python_reference.h"
#include "arg_gen.h"
#include "bridge/bridge.h"
#include "bridge/interpreter.h"
#include "decorators/heuristic_program.h"
#include "key/repr.h"
#include "test_util.h"

namespace py = pybind11;
using triton_jit::ArgValue;
using triton_jit::DType;
using triton_jit::detail::HeuristicProgram;
using K = ArgValue::Kind;

namespace {

// tests/support/heuristics_reference.py. Call with the GIL.
py::module_& heuristics_reference() { return triton_jit::test::support_module("heuristics_reference"); }

// An argument as Python sees it: the bridge's own stand-ins. Call with the GIL.
py::object to_python(const ArgValue& a) {
  py::module_& b = triton_jit::bridge::bridge();
  switch (a.kind()) {
    case K::None: return py::none();
    case K::Bool: return py::bool_(a.as_bool());
    case K::Int: return py::int_(a.as_int());
    case K::UInt: return py::int_(a.as_uint());
    case K::Float: return py::float_(a.as_float());
    case K::String: return py::str(a.as_string().data(), a.as_string().size());
    case K::DType:
      return b.attr("_constexpr_value")(triton_jit::detail::python_dtype_repr(a.dtype(), a.is_torch_dtype()));
    case K::Pointer: return b.attr("TensorArg")(py::int_(a.address()), std::string(triton_jit::dtype_name(a.dtype())));
    default: return py::none();
  }
}

// Python objects the tests hold: a reference kept for the process, so nothing is released
// without the GIL.
PyObject* keep(py::handle h) { return h.inc_ref().ptr(); }

struct Heuristic {
  std::string name;
  PyObject* func;
};

struct Loaded {
  triton_jit::StaticSignature sig;
  std::vector<Heuristic> heuristics;
};

Loaded load(const std::string& file, const char* function) {
  const std::string path = test::canonical(test::kernel(file));
  Loaded l;
  l.sig = triton_jit::bridge::load_function(path, function).signature;
  triton_jit::bridge::GilGuard gil;
  for (auto item : heuristics_reference().attr("heuristics_of")(triton_jit::bridge::bridge(), path, function)) {
    py::tuple t = item.cast<py::tuple>();
    l.heuristics.push_back({t[0].cast<std::string>(), keep(t[1])});
  }
  return l;
}

triton_jit::bridge::PyHandle handle(PyObject* o) { return {o}; }

// Random arguments that reach the interesting paths: small integers (divisibility, signs, zero),
// powers of two, the edges around the 64-bit ranges, floats, None, bools, pointers of every dtype,
// a few strings and dtypes. Parameters named x are mostly pointers.
ArgValue random_arg(test::ArgGenerator& gen, const std::string& param) {
  const uint64_t r = gen.pick(100);
  if (param == "x" && r < 70) return gen.pointer();
  if (r < 30) return ArgValue::integer(static_cast<int64_t>(gen.pick(41)) - 20);
  if (r < 40) return ArgValue::integer((int64_t{1} << gen.pick(14)) * (gen.pick(4) == 0 ? -1 : 1));
  if (r < 55) return gen.integer();
  if (r < 61) return gen.floating();
  if (r < 67) return ArgValue::floating((static_cast<double>(gen.pick(81)) - 40) / 4);
  if (r < 75) return ArgValue::none();
  if (r < 83) return ArgValue::boolean(gen.pick(2));
  if (r < 93) return gen.pointer();
  if (r < 97) return gen.string();
  return gen.dtype();
}

constexpr int kCalls = 3000;

struct Counts {
  std::map<std::string, int> by_class;
  int failures = 0;
};

Counts run_parity(const Loaded& l, const Heuristic& h, const HeuristicProgram& program, uint64_t seed) {
  test::ArgGenerator gen(seed);
  const size_t n = l.sig.params.size();
  std::vector<std::vector<ArgValue>> calls;
  std::vector<std::pair<HeuristicProgram::Outcome, ArgValue>> ours;
  for (int c = 0; c < kCalls; ++c) {
    std::vector<ArgValue> args;
    for (size_t i = 0; i < n; ++i) args.push_back(random_arg(gen, l.sig.params[i].name));
    ArgValue result;
    const auto outcome = program.evaluate(args.data(), args.size(), &result);
    ours.emplace_back(outcome, result);
    calls.push_back(std::move(args));
  }
  Counts counts;
  triton_jit::bridge::GilGuard gil;
  py::list names, py_calls, py_ours;
  for (const auto& p : l.sig.params) names.append(p.name);
  for (size_t c = 0; c < calls.size(); ++c) {
    py::tuple t(n);
    for (size_t i = 0; i < n; ++i) t[i] = to_python(calls[c][i]);
    py_calls.append(t);
    py_ours.append(ours[c].first == HeuristicProgram::Outcome::NeedsPython ? py::str("<needs python>")
                                                                           : to_python(ours[c].second));
  }
  py::list verdicts = heuristics_reference().attr("check")(triton_jit::bridge::bridge(), py::handle(h.func), names,
                                                           py_calls, py_ours);
  for (size_t c = 0; c < calls.size(); ++c) {
    const std::string v = verdicts[c].cast<std::string>();
    if (v.rfind("FAIL", 0) == 0) {
      if (++counts.failures <= 10) {
        std::string args;
        for (const ArgValue& a : calls[c]) args += (args.empty() ? "" : ", ") + test::describe(a);
        ADD_FAILURE() << h.name << "(" << args << "): " << v << "\n" << program.text();
      }
      continue;
    }
    if ((v == "big" || v == "string") && std::getenv("HEURISTIC_TEST_VERBOSE") != nullptr) {
      std::string args;
      for (const ArgValue& a : calls[c]) args += (args.empty() ? "" : ", ") + test::describe(a);
      std::printf("  %s needs Python (%s): %s\n", h.name.c_str(), v.c_str(), args.c_str());
    }
    ++counts.by_class[v];
  }
  return counts;
}

// tests/kernels/heuristics.py compares torch dtypes, as real heuristics do; the Triton versions'
// virtualenvs (scripts/test-triton-versions.sh) have no torch.
bool torch_importable() {
  static const bool importable = [] {
    triton_jit::bridge::GilGuard gil;
    triton_jit::bridge::bridge();
    try {
      py::module_::import("torch");
      return true;
    } catch (const py::error_already_set&) {
      return false;
    }
  }();
  return importable;
}

#define SKIP_WITHOUT_TORCH() \
  if (!torch_importable()) GTEST_SKIP() << "tests/kernels/heuristics.py needs torch, which this Python cannot import"

struct KernelCase {
  const char* function;
  std::vector<std::string> python_only;  // heuristics the translator must refuse
};

class Parity : public testing::TestWithParam<KernelCase> {};

TEST_P(Parity, ProgramsMatchPython) {
  const KernelCase k = GetParam();
  SKIP_WITHOUT_TORCH();
  const Loaded l = load("heuristics.py", k.function);
  ASSERT_FALSE(l.heuristics.empty());
  int index = 0;
  for (const Heuristic& h : l.heuristics) {
    SCOPED_TRACE(h.name);
    std::string reason;
    const auto text = triton_jit::bridge::translate_heuristic(handle(h.func), l.sig, &reason);
    const bool python_only = std::find(k.python_only.begin(), k.python_only.end(), h.name) != k.python_only.end();
    if (python_only) {
      EXPECT_FALSE(text) << "translated:\n" << *text;
      EXPECT_FALSE(reason.empty());
      std::printf("%-8s %-10s stays in Python: %s\n", k.function, h.name.c_str(), reason.c_str());
      continue;
    }
    ASSERT_TRUE(text) << reason;
    const HeuristicProgram program = HeuristicProgram::parse(*text);
    EXPECT_EQ(program.text(), *text);
    const Counts counts = run_parity(l, h, program, 0x6865757269737469ull + index++);
    EXPECT_EQ(counts.failures, 0) << "of " << kCalls << " calls";
    std::string summary;
    for (const auto& [cls, count] : counts.by_class) summary += " " + cls + "=" + std::to_string(count);
    std::printf("%-13s %-11s %d calls:%s\n", k.function, h.name.c_str(), kCalls, summary.c_str());
    EXPECT_GT(counts.by_class.count("equal") ? counts.by_class.at("equal") : 0, kCalls / 4)
        << "most calls should be answered in C++";
  }
}

INSTANTIATE_TEST_SUITE_P(Heuristics, Parity,
                         testing::Values(KernelCase{"chunk_kernel", {}}, KernelCase{"dtype_kernel", {}},
                                         KernelCase{"scalar_kernel", {"LOOP"}}),
                         [](const testing::TestParamInfo<KernelCase>& info) {
                           return std::string(info.param.function);
                         });

// ---- the translator's refusals ----

// The format's version and the evaluation stack's depth are defined once, in C++: the bridge the
// library embeds carries them (its module _formats, generated from heuristic_program.h) and writes
// programs of that version.
TEST(HeuristicProgramVersion, TheBridgeWritesTheVersionTheRuntimeReads) {
  triton_jit::bridge::GilGuard gil;
  triton_jit::bridge::bridge();
  py::module_ formats = py::module_::import("triton_jit_bridge._formats");
  EXPECT_EQ(formats.attr("HEURISTIC_PROGRAM_VERSION").cast<int>(), HeuristicProgram::kVersion);
  EXPECT_EQ(formats.attr("HEURISTIC_MAX_STACK").cast<int>(), HeuristicProgram::kMaxStack);
  // The translator reads a lambda's source from its file: one written for the purpose.
  py::dict scope;
  scope["translate"] = triton_jit::bridge::bridge().attr("translate_heuristic");
  py::exec(R"(
import importlib.util, os, tempfile
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "version_heuristic.py")
    with open(path, "w") as f:
        f.write("heuristic = lambda args: args['n'] * 2\n")
    spec = importlib.util.spec_from_file_location("version_heuristic", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = translate(module.heuristic, ["n"])
)",
           scope);
  py::tuple r = scope["result"].cast<py::tuple>();
  ASSERT_FALSE(r[0].is_none()) << r[1].cast<std::string>();
  const std::string text = r[0].cast<std::string>();
  EXPECT_EQ(text.substr(0, text.find('\n')), "heuristic-program " + std::to_string(HeuristicProgram::kVersion));
  EXPECT_NO_THROW(HeuristicProgram::parse(text));
}

TEST(Translator, RefusesWhatItDoesNotModelAndSaysWhat) {
  const std::string path = test::canonical(test::kernel("heuristics_refused.py"));
  triton_jit::StaticSignature sig;
  for (const char* name : {"a", "b", "x"}) {
    triton_jit::ParamInfo p;
    p.name = name;
    p.index = static_cast<int>(sig.params.size());
    sig.params.push_back(p);
  }
  std::vector<std::tuple<std::string, PyObject*, std::string>> cases;
  PyObject* pair;
  {
    triton_jit::bridge::GilGuard gil;
    py::dict refused = heuristics_reference().attr("module_value")(triton_jit::bridge::bridge(), path, "REFUSED");
    for (auto item : refused) {
      py::tuple t = item.second.cast<py::tuple>();
      cases.emplace_back(item.first.cast<std::string>(), keep(t[0]), t[1].cast<std::string>());
    }
    pair = keep(heuristics_reference().attr("module_value")(triton_jit::bridge::bridge(), path, "PAIR"));
  }
  ASSERT_GE(cases.size(), 15u);
  for (const auto& [name, func, expected] : cases) {
    std::string reason;
    const auto text = triton_jit::bridge::translate_heuristic(handle(func), sig, &reason);
    EXPECT_FALSE(text) << name << " translated:\n" << *text;
    EXPECT_TRUE(test::contains(reason, expected))
        << name << ": the reason '" << reason << "' should contain '" << expected << "'";
    std::printf("%-16s %s\n", name.c_str(), reason.c_str());
  }

  // Two lambdas on one line: each is found by its own code.
  std::string reason;
  triton_jit::bridge::GilGuard gil;
  py::tuple both = py::reinterpret_borrow<py::tuple>(pair);
  const auto first = triton_jit::bridge::translate_heuristic(handle(keep(both[0])), sig, &reason);
  const auto second = triton_jit::bridge::translate_heuristic(handle(keep(both[1])), sig, &reason);
  ASSERT_TRUE(first && second) << reason;
  EXPECT_EQ(*first, "heuristic-program 1\nparam 0\n");
  EXPECT_EQ(*second, "heuristic-program 1\nparam 1\n");

  // No source: a lambda made by eval.
  PyObject* made = keep(py::eval("lambda args: args['a'] + 1"));
  EXPECT_FALSE(triton_jit::bridge::translate_heuristic(handle(made), sig, &reason));
  EXPECT_TRUE(test::contains(reason, "source")) << reason;
  // Not a function at all.
  PyObject* not_function = keep(py::eval("abs"));
  EXPECT_FALSE(triton_jit::bridge::translate_heuristic(handle(not_function), sig, &reason));
  EXPECT_TRUE(test::contains(reason, "not a Python function")) << reason;
}

// ---- the Python fallback ----

const Heuristic& find(const Loaded& l, const std::string& name) {
  for (const Heuristic& h : l.heuristics) {
    if (h.name == name) return h;
  }
  throw std::runtime_error("no heuristic " + name);
}

TEST(CallHeuristic, RecordsExactlyTheArgumentsRead) {
  SKIP_WITHOUT_TORCH();
  const Loaded l = load("heuristics.py", "scalar_kernel");
  const int a = l.sig.find("a"), b = l.sig.find("b"), flag = l.sig.find("flag"), n = l.sig.find("n");
  std::vector<ArgValue> args(l.sig.params.size(), ArgValue::integer(3));
  args[a] = ArgValue::integer(10);
  args[b] = ArgValue::integer(20);

  // PICK: args["a"] if args["flag"] else args["b"]: the branch taken decides what is read.
  args[flag] = ArgValue::boolean(true);
  auto call = triton_jit::bridge::call_heuristic(handle(find(l, "PICK").func), l.sig, "PICK", args.data(), args.size());
  EXPECT_EQ(call.result.kind, K::Int);
  EXPECT_EQ(call.result.int_value, 10);
  EXPECT_EQ(call.params_read, (std::vector<uint32_t>{uint32_t(a), uint32_t(flag)}));
  args[flag] = ArgValue::boolean(false);
  call = triton_jit::bridge::call_heuristic(handle(find(l, "PICK").func), l.sig, "PICK", args.data(), args.size());
  EXPECT_EQ(call.result.int_value, 20);
  EXPECT_EQ(call.params_read, (std::vector<uint32_t>{uint32_t(b), uint32_t(flag)}));

  // AND: args["a"] and args["b"]: b is read only when a is truthy.
  args[a] = ArgValue::integer(0);
  call = triton_jit::bridge::call_heuristic(handle(find(l, "AND").func), l.sig, "AND", args.data(), args.size());
  EXPECT_EQ(call.params_read, (std::vector<uint32_t>{uint32_t(a)}));

  // The loop (not translatable): reads n only; its value is Python's.
  args[n] = ArgValue::integer(100);
  call = triton_jit::bridge::call_heuristic(handle(find(l, "LOOP").func), l.sig, "LOOP", args.data(), args.size());
  EXPECT_EQ(call.result.kind, K::Int);
  EXPECT_EQ(call.result.int_value, 128);
  EXPECT_EQ(call.params_read, (std::vector<uint32_t>{uint32_t(n)}));

  // Results of every constexpr kind.
  args[a] = ArgValue::integer(3);
  call = triton_jit::bridge::call_heuristic(handle(find(l, "STR").func), l.sig, "STR", args.data(), args.size());
  EXPECT_EQ(call.result.kind, K::String);
  EXPECT_EQ(call.result.string_value, "fast");
  call = triton_jit::bridge::call_heuristic(handle(find(l, "DIV").func), l.sig, "DIV", args.data(), args.size());
  EXPECT_EQ(call.result.kind, K::Float);
  EXPECT_EQ(call.result.float_value, 3.0 / 20.0);

  SKIP_WITHOUT_TORCH();
  const Loaded d = load("heuristics.py", "dtype_kernel");
  std::vector<ArgValue> dargs = {test::ptr(0x1000, DType::bf16), ArgValue::integer(5)};
  for (const Heuristic& h : d.heuristics) {
    call = triton_jit::bridge::call_heuristic(handle(h.func), d.sig, h.name, dargs.data(), dargs.size());
    if (h.name == "OUT_DTYPE") {
      EXPECT_EQ(call.result.kind, K::DType);
      EXPECT_EQ(call.result.dtype_value, DType::fp16);
      EXPECT_FALSE(call.result.torch_dtype);
    }
    if (h.name == "BYTES") EXPECT_EQ(call.result.int_value, 10);
    if (h.name == "IS_FP16") EXPECT_FALSE(call.result.bool_value);
  }
}

TEST(CallHeuristic, AnExceptionIsAnArgumentErrorWithItsTraceback) {
  SKIP_WITHOUT_TORCH();
  const Loaded l = load("heuristics.py", "chunk_kernel");
  std::vector<ArgValue> args = {test::ptr(0x1000), ArgValue::none(), ArgValue::integer(100), ArgValue::integer(0)};
  args.resize(l.sig.params.size(), ArgValue::none());
  try {
    triton_jit::bridge::call_heuristic(handle(find(l, "EVEN_N").func), l.sig, "EVEN_N", args.data(), args.size());
    FAIL() << "no error";
  } catch (const triton_jit::ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.parameter(), "EVEN_N");
    EXPECT_EQ(e.function(), "chunk_kernel");
    EXPECT_TRUE(test::contains(what, "heuristic 'EVEN_N' of chunk_kernel raised ZeroDivisionError")) << what;
    EXPECT_TRUE(test::contains(what, "Traceback")) << what;
    EXPECT_TRUE(test::contains(what, "heuristics.py")) << what;
    EXPECT_TRUE(test::contains(what, "args[\"n\"] % args[\"BLOCK\"]")) << what;
  }
  // The program says NeedsPython for the same call.
  std::string reason;
  const auto text = triton_jit::bridge::translate_heuristic(handle(find(l, "EVEN_N").func), l.sig, &reason);
  ASSERT_TRUE(text) << reason;
  ArgValue result;
  EXPECT_EQ(HeuristicProgram::parse(*text).evaluate(args.data(), args.size(), &result),
            HeuristicProgram::Outcome::NeedsPython);
}

TEST(CallHeuristic, AResultThatCannotBeAConstexprIsAClearError) {
  SKIP_WITHOUT_TORCH();
  const Loaded l = load("heuristics.py", "scalar_kernel");
  std::vector<ArgValue> args(l.sig.params.size(), ArgValue::integer(1));
  args[l.sig.find("a")] = test::ptr(0x2000, DType::fp16);
  args[l.sig.find("flag")] = ArgValue::boolean(true);
  try {
    triton_jit::bridge::call_heuristic(handle(find(l, "PICK").func), l.sig, "PICK", args.data(), args.size());
    FAIL() << "no error";
  } catch (const triton_jit::ArgumentError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(test::contains(what, "heuristic 'PICK' of scalar_kernel returned TensorArg")) << what;
    EXPECT_TRUE(test::contains(what, "cannot be a constexpr")) << what;
  }
  // A list, and an integer beyond 64 bits.
  const std::string path = test::canonical(test::kernel("heuristics_refused.py"));
  PyObject* list_result;
  {
    triton_jit::bridge::GilGuard gil;
    list_result = keep(heuristics_reference().attr("module_value")(triton_jit::bridge::bridge(), path, "LIST_RESULT"));
  }
  try {
    triton_jit::bridge::call_heuristic(handle(list_result), l.sig, "L", args.data(), args.size());
    FAIL() << "no error";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_TRUE(test::contains(e.what(), "returned list [")) << e.what();
  }
  args[l.sig.find("a")] = ArgValue::integer(int64_t{1} << 62);
  args[l.sig.find("b")] = ArgValue::integer(3);
  try {
    triton_jit::bridge::call_heuristic(handle(find(l, "POW").func), l.sig, "POW", args.data(), args.size());
    FAIL() << "no error";
  } catch (const triton_jit::ArgumentError& e) {
    EXPECT_TRUE(test::contains(e.what(), "returned int 98079714615416886934934209737619787751599303819750539264"))
        << e.what();
  }
}

// ---- the program itself ----

ArgValue eval(const std::string& body, std::vector<ArgValue> args = {},
              HeuristicProgram::Outcome expect = HeuristicProgram::Outcome::Value) {
  // A string result views the program's own strings: each program lives to the end of the test.
  static std::deque<HeuristicProgram> programs;
  const HeuristicProgram& p = programs.emplace_back(HeuristicProgram::parse("heuristic-program 1\n" + body));
  ArgValue r;
  EXPECT_EQ(p.evaluate(args.data(), args.size(), &r), expect) << body;
  return r;
}

TEST(Program, PythonSemantics) {
  // bool is an int, but & | ^ of two bools stay bool.
  EXPECT_EQ(eval("bool 1\nint 1\nadd\n").kind(), K::Int);
  EXPECT_EQ(eval("bool 1\nbool 0\nbitor\n").kind(), K::Bool);
  EXPECT_EQ(eval("bool 1\nneg\n").as_int(), -1);
  // Floor division and modulo round toward -inf.
  EXPECT_EQ(eval("int -7\nint 2\nfloordiv\n").as_int(), -4);
  EXPECT_EQ(eval("int -7\nint 2\nmod\n").as_int(), 1);
  EXPECT_EQ(eval("int 7\nint -2\nmod\n").as_int(), -1);
  EXPECT_EQ(eval("float -0x1.ep+2\nint 2\nfloordiv\n").as_float(), -4.0);  // -7.5 // 2
  EXPECT_TRUE(std::signbit(eval("float 0x1.0p+0\nfloat -0x1.0p+1\nmod\n").as_float()) == true);
  eval("int 1\nint 0\nmod\n", {}, HeuristicProgram::Outcome::NeedsPython);  // ZeroDivisionError
  // int ** negative is a float; 0 ** -1 raises.
  EXPECT_EQ(eval("int 2\nint -1\npow\n").as_float(), 0.5);
  eval("int 0\nint -1\npow\n", {}, HeuristicProgram::Outcome::NeedsPython);
  // Comparisons across kinds; None == 0 is False; min keeps the first of equals.
  EXPECT_FALSE(eval("none\nint 0\neq\n").as_bool());
  EXPECT_TRUE(eval("int 1\nfloat 0x1.0p+0\neq\n").as_bool());
  EXPECT_EQ(eval("int 1\nfloat 0x1.0p+0\nbool 1\nmin 3\n").kind(), K::Int);
  EXPECT_EQ(eval("float 0x1.0p+0\nint 1\nmax 2\n").kind(), K::Float);
  // 2**53 + 1 differs from the float 2**53 (compared exactly, not through a float).
  EXPECT_FALSE(eval("int 9007199254740993\nfloat 0x1.0p+53\neq\n").as_bool());
  eval("int 1\nnone\nlt\n", {}, HeuristicProgram::Outcome::NeedsPython);  // TypeError
  // int() truncates; int() of a huge float leaves the range.
  EXPECT_EQ(eval("float -0x1.ep+1\nint\n").as_int(), -3);
  eval("float 0x1.0p+100\nint\n", {}, HeuristicProgram::Outcome::NeedsPython);
  eval("float nan\nint\n", {}, HeuristicProgram::Outcome::NeedsPython);
  // Overflow of the result's range, even where Python would be fine.
  eval("int 9223372036854775807\nint 9223372036854775807\nmul\n", {}, HeuristicProgram::Outcome::NeedsPython);
  // ... but intermediate values may pass 64 bits.
  EXPECT_EQ(eval("int 9223372036854775807\nint 4\nmul\nint 8\nfloordiv\n").as_uint(), 4611686018427387903u);
  EXPECT_EQ(eval("int 18446744073709551615\n").kind(), K::UInt);
  // and/or return an operand.
  EXPECT_EQ(eval("int 0\njump_if_true_or_pop 3\nstr 6869\n").as_string(), "hi");
  EXPECT_EQ(eval("int 0\njump_if_false_or_pop 3\nstr 6869\n").as_int(), 0);
  // next_power_of_2 and cdiv, as Triton's Python does them.
  EXPECT_EQ(eval("int 0\nnext_power_of_2\n").as_int(), 0);
  EXPECT_EQ(eval("int 1000\nnext_power_of_2\n").as_int(), 1024);
  EXPECT_EQ(eval("int -5\nnext_power_of_2\n").as_int(), 0);
  EXPECT_EQ(eval("float 0x1.4p+2\nint 2\ncdiv\n").as_float(), 3.0);  // cdiv(5.0, 2)
  // Pointers: .dtype is torch's, element_size, never None; their truth value needs Python.
  const std::vector<ArgValue> ptr = {test::ptr(0x10, DType::bf16)};
  EXPECT_EQ(eval("param 0\ndtype_of\ndtype bf16 torch\neq\n", ptr).as_bool(), true);
  EXPECT_EQ(eval("param 0\ndtype_of\ndtype bf16 tl\neq\n", ptr).as_bool(), false);
  EXPECT_EQ(eval("param 0\nelement_size\n", ptr).as_int(), 2);
  EXPECT_EQ(eval("param 0\nisnone\n", ptr).as_bool(), false);
  eval("param 0\nnot\n", ptr, HeuristicProgram::Outcome::NeedsPython);
  const ArgValue d = eval("param 0\ndtype_of\n", ptr);
  EXPECT_TRUE(d.is_torch_dtype());
  // A string result views the program's storage, which copies share.
  const HeuristicProgram p = HeuristicProgram::parse("heuristic-program 1\nstr 666173740a\n");
  const HeuristicProgram copy = p;
  ArgValue r;
  ASSERT_EQ(copy.evaluate(nullptr, 0, &r), HeuristicProgram::Outcome::Value);
  EXPECT_EQ(r.as_string(), "fast\n");
  // A parameter the call lacks.
  eval("param 3\n", {}, HeuristicProgram::Outcome::NeedsPython);
  EXPECT_EQ(HeuristicProgram::parse("heuristic-program 1\nparam 4\nparam 1\nparam 4\nadd\nadd\n").params_read(),
            (std::vector<uint32_t>{1, 4}));
}

TEST(Program, MalformedTextNamesTheLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "line 1"},
      {"heuristic-program 2\nint 1\n", "line 1"},
      {"heuristic-program 1\nfrobnicate\n", "line 2 ('frobnicate'): unknown instruction"},
      {"heuristic-program 1\nint 1\nint 2\n", "exactly one value"},
      {"heuristic-program 1\nint 1\nadd\n", "line 3 ('add'): takes more values"},
      {"heuristic-program 1\nint x\n", "line 2 ('int x'): bad integer"},
      {"heuristic-program 1\nint 18446744073709551616\n", "bad integer"},
      {"heuristic-program 1\nfloat 1.5\n", "bad float"},
      {"heuristic-program 1\nstr 6\n", "bad string"},
      {"heuristic-program 1\nstr zz\n", "bad string"},
      {"heuristic-program 1\ndtype float16 tl\n", "unknown dtype"},
      {"heuristic-program 1\ndtype fp8e4b15 torch\n", "torch has no such dtype"},
      {"heuristic-program 1\nint 1\njump 1\n", "line 3 ('jump 1'): bad jump target"},
      {"heuristic-program 1\nint 1\njump 9\n", "bad jump target"},
      {"heuristic-program 1\nint 1\njump 3\nint 2\n", "line 4 ('int 2'): unreachable"},
      {"heuristic-program 1\nint 1\nmin 1\n", "bad count"},
      {"heuristic-program 1\nint 1\njump_if_true_or_pop 4\nint 2\nint 3\n", "differs between paths"},
      {"heuristic-program 1\nint 1\n\nint 2\n", "line 3 (''): empty instruction"},
      {"heuristic-program 1\nneg 1\n", "wrong number of operands"},
  };
  for (const auto& [text, expected] : cases) {
    try {
      HeuristicProgram::parse(text);
      ADD_FAILURE() << "parsed: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(test::contains(e.what(), expected)) << e.what() << "\n  expected: " << expected;
    }
  }
  std::string deep = "heuristic-program 1\n";
  for (int i = 0; i < 65; ++i) deep += "int 1\n";
  EXPECT_THROW(HeuristicProgram::parse(deep), std::invalid_argument);
}

}  // namespace
