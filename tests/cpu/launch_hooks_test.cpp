// Launch hooks through the fake driver (fake_driver.h): the C++ API (triton_jit/launch_hooks.h)
// and Triton's own Python hooks (triton.knobs.runtime.launch_enter_hook / launch_exit_hook), set
// in the embedded interpreter as proton sets them, called around launches made from C++: with
// what arguments, in which order, not at all when unset, and what an exception in one does.
#include <gtest/gtest.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bridge/interpreter.h"
#include "fake_driver.h"
#include "test_util.h"
#include "triton_jit/launch_hooks.h"

namespace py = pybind11;
using triton_jit::LaunchHookInfo;
using triton_jit::TritonJitFunction;

namespace {

TritonJitFunction& scale() { return TritonJitFunction::get(test::kernel("launch_metadata.py"), "scale_kernel"); }

fake::Launch* launch_with(const triton_jit::LaunchConfig& c, int n = 1000) {
  scale()(c, reinterpret_cast<float*>(0x100000), reinterpret_cast<float*>(0x200000), n, 2.5f, 64);
  return fake::state().launches.empty() ? nullptr : &fake::state().launches.back();
}

struct Seen {
  std::string what;  // "enter A", "exit B", ...
  size_t launches_before = 0;
  LaunchHookInfo info;
  std::string kernel_name, key;
  std::vector<triton_jit::ArgValue> args;
};

struct Recorder {
  std::string name;
  std::vector<Seen>* log;
  bool throw_on_enter = false;
};

void record(const char* what, const LaunchHookInfo& info, void* user_data) {
  auto* r = static_cast<Recorder*>(user_data);
  Seen s;
  s.what = std::string(what) + " " + r->name;
  s.launches_before = fake::state().launches.size();
  s.info = info;
  s.kernel_name = std::string(info.kernel_name);
  s.key = std::string(info.key);
  s.args.assign(info.args.data, info.args.data + info.args.size);
  r->log->push_back(s);
}
void on_enter(const LaunchHookInfo& info, void* user_data) {
  record("enter", info, user_data);
  if (static_cast<Recorder*>(user_data)->throw_on_enter) throw std::runtime_error("enter hook refused");
}
void on_exit(const LaunchHookInfo& info, void* user_data) { record("exit", info, user_data); }

class LaunchHooks : public testing::Test {
 protected:
  void SetUp() override {
    fake::install();
    scale().compile(test::config(), reinterpret_cast<float*>(0x100000), reinterpret_cast<float*>(0x200000), 1000,
                    2.5f, 64);
  }
  void TearDown() override {
    for (uint64_t id : ids_) triton_jit::remove_launch_hooks(id);
    fake::uninstall();
  }
  uint64_t add(Recorder* r) {
    ids_.push_back(triton_jit::add_launch_hooks({&on_enter, &on_exit, r}));
    return ids_.back();
  }
  std::vector<uint64_t> ids_;
};

uint32_t cpp_bit() { return triton_jit::detail::launch_hook_bits() & triton_jit::detail::kCppLaunchHooks; }

TEST_F(LaunchHooks, CppHooksSeeTheLaunch) {
  std::vector<Seen> log;
  Recorder r{"A", &log};
  add(&r);
  triton_jit::LaunchConfig c = test::config(7);
  c.grid = triton_jit::Grid(7, 2, 3);
  c.stream = reinterpret_cast<CUstream_st*>(0x55);
  fake::Launch* l = launch_with(c);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].what, "enter A");
  EXPECT_EQ(log[0].launches_before, 0u) << "the enter hook runs before the launch";
  EXPECT_EQ(log[1].what, "exit A");
  EXPECT_EQ(log[1].launches_before, 1u) << "the exit hook runs after it";
  for (const Seen& s : log) {
    EXPECT_EQ(s.info.function, &scale());
    EXPECT_EQ(s.kernel_name, "scale_kernel");
    EXPECT_EQ(s.key.rfind("*fp32:16,*fp32:16,i32,fp32,64|num_warps=4|num_stages=3|num_ctas=1|", 0), 0u) << s.key;
    EXPECT_EQ(s.info.kernel, &scale().compile(test::config(), reinterpret_cast<float*>(0x100000),
                                              reinterpret_cast<float*>(0x200000), 1000, 2.5f, 64));
    EXPECT_EQ(s.info.grid.x, 7);
    EXPECT_EQ(s.info.grid.y, 2);
    EXPECT_EQ(s.info.grid.z, 3);
    EXPECT_EQ(s.info.stream, reinterpret_cast<CUstream_st*>(0x55));
    EXPECT_NE(s.info.cu_function, nullptr);
    ASSERT_EQ(s.args.size(), 5u);
    EXPECT_EQ(s.args[0].address(), 0x100000u);
    EXPECT_EQ(s.args[2].as_int(), 1000);
    EXPECT_EQ(s.args[4].as_int(), 64);
  }
}

TEST_F(LaunchHooks, EnterInOrderExitInReverse) {
  std::vector<Seen> log;
  Recorder a{"A", &log}, b{"B", &log};
  add(&a);
  add(&b);
  launch_with(test::config());
  std::vector<std::string> order;
  for (const Seen& s : log) order.push_back(s.what);
  EXPECT_EQ(order, (std::vector<std::string>{"enter A", "enter B", "exit B", "exit A"}));
}

TEST_F(LaunchHooks, NoneAfterRemoval) {
  EXPECT_EQ(cpp_bit(), 0u);
  std::vector<Seen> log;
  Recorder r{"A", &log};
  const uint64_t id = add(&r);
  EXPECT_NE(cpp_bit(), 0u);
  launch_with(test::config());
  EXPECT_EQ(log.size(), 2u);
  EXPECT_TRUE(triton_jit::remove_launch_hooks(id));
  EXPECT_FALSE(triton_jit::remove_launch_hooks(id)) << "an id is removed once";
  EXPECT_EQ(cpp_bit(), 0u) << "no C++ hook left: the launch path reads 0 again";
  launch_with(test::config());
  EXPECT_EQ(log.size(), 2u);
  EXPECT_EQ(fake::state().launches.size(), 2u);
}

TEST_F(LaunchHooks, ThrowingEnterHookStopsTheLaunch) {
  std::vector<Seen> log;
  Recorder a{"A", &log}, b{"B", &log, /*throw_on_enter=*/true};
  add(&a);
  add(&b);
  EXPECT_THROW(launch_with(test::config()), std::runtime_error);
  EXPECT_TRUE(fake::state().launches.empty()) << "no launch after an enter hook threw";
  std::vector<std::string> order;
  for (const Seen& s : log) order.push_back(s.what);
  EXPECT_EQ(order, (std::vector<std::string>{"enter A", "enter B"})) << "no exit hook runs";
}

// A decorated kernel: the hooks see the completed call (the config's BLOCK, the heuristic's EVEN)
// and the kernel the config chose (its num_warps in the key).
TEST_F(LaunchHooks, DecoratedCallIsSeenComplete) {
  auto& fn = TritonJitFunction::get(test::kernel("decorated.py"), "single_config_kernel");
  std::vector<Seen> log;
  Recorder r{"A", &log};
  add(&r);
  fn(test::config(2), reinterpret_cast<float*>(0x100000), reinterpret_cast<float*>(0x200000), 1024);
  ASSERT_EQ(log.size(), 2u);
  const Seen& s = log[0];
  EXPECT_EQ(s.info.function, &fn);
  ASSERT_EQ(s.args.size(), 5u) << "x_ptr, y_ptr, n, BLOCK, EVEN";
  EXPECT_EQ(s.args[3].as_int(), 512) << "BLOCK from the autotuner's config";
  EXPECT_TRUE(s.args[4].as_bool()) << "EVEN from the heuristic: 1024 % 512 == 0";
  EXPECT_TRUE(test::contains(s.key, "|num_warps=2|num_stages=2|")) << s.key;
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

// ---- Triton's Python launch hooks ----

uint32_t python_bit() { return triton_jit::detail::launch_hook_bits() & triton_jit::detail::kPythonLaunchHooks; }

// Runs Python in the embedded interpreter's __main__ (the bridge loaded first: it installs the
// watch on Triton's knobs when it loads, as it does in any process that compiles).
void run_python(const char* code) {
  triton_jit::bridge::bridge();
  py::exec(code, py::module_::import("__main__").attr("__dict__"));
}

py::object main_value(const char* name) { return py::module_::import("__main__").attr(name); }

class PythonLaunchHooks : public LaunchHooks {
 protected:
  void SetUp() override {
    LaunchHooks::SetUp();
    triton_jit::bridge::GilGuard gil;
    run_python(R"(
from triton import knobs
seen = []
def enter(metadata):
    seen.append(("enter", metadata))
def exit_(metadata):
    seen.append(("exit", metadata))
saved = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
)");
  }
  void TearDown() override {
    {
      triton_jit::bridge::GilGuard gil;
      run_python("knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = saved");
    }
    EXPECT_EQ(python_bit(), 0u);
    LaunchHooks::TearDown();
  }
};

TEST_F(PythonLaunchHooks, CalledWithTritonsLazyDict) {
  triton_jit::bridge::GilGuard gil;
  EXPECT_EQ(python_bit(), 0u) << "Triton's hooks are unset: the launch path must not ask Python";
  run_python("knobs.runtime.launch_enter_hook = enter\nknobs.runtime.launch_exit_hook = exit_");
  EXPECT_NE(python_bit(), 0u);
  triton_jit::LaunchConfig c = test::config();
  c.grid = triton_jit::Grid(16, 1, 1);
  c.stream = reinterpret_cast<CUstream_st*>(0x77);
  {
    py::gil_scoped_release released;  // a C++ launch takes the GIL itself
    launch_with(c, 1000);
  }
  ASSERT_EQ(fake::state().launches.size(), 1u);
  run_python(R"(
from triton.compiler import LazyDict
from triton.backends.compiler import GPUTarget
assert [w for w, _ in seen] == ["enter", "exit"], seen
md = seen[0][1]
assert isinstance(md, LazyDict), type(md)
assert seen[1][1] is md, "the exit hook gets the enter hook's object"
data = md.get()
assert data["function"] != 0 and isinstance(data["function"], int), data
assert data["stream"] == 0x77, data
# The kernel's launch_metadata, merged over Triton's own keys, saw Triton's arguments:
assert data["name"] == "scale_kernel [n=1000]", data
assert data["bytes"] == 2 * 1000 * 4, data
assert data["grid_seen"] == (16, 1, 1), data
assert data["num_warps_seen"] == 4, data
assert data["block_seen"] == 64, data
assert data["arg_names_seen"] == ("x_ptr", "out_ptr", "n_elements", "alpha", "BLOCK"), data
)");
}

TEST_F(PythonLaunchHooks, MetadataIsTheCompiledKernelsAsTritonBuildsIt) {
  triton_jit::bridge::GilGuard gil;
  const auto& info = scale().compile(test::config(), reinterpret_cast<float*>(0x100000),
                                     reinterpret_cast<float*>(0x200000), 1000, 2.5f, 64);
  // The function object the runtime compiled gets a recording launch_metadata for this test.
  run_python(R"(
import gc
from triton.runtime.jit import JITFunction
got = []
def keep(grid, metadata, args):
    got.append((grid, metadata, dict(args)))
    return {}
fns = [o for o in gc.get_objects() if isinstance(o, JITFunction) and o.fn.__name__ == "scale_kernel"]
assert fns, "the kernel's function is loaded"
previous = [f.launch_metadata for f in fns]
for f in fns:
    f.launch_metadata = keep
knobs.runtime.launch_enter_hook = lambda md: md.get()
)");
  {
    py::gil_scoped_release released;
    launch_with(test::config(3));
  }
  run_python("for f, p in zip(fns, previous):\n    f.launch_metadata = p");
  py::list got = main_value("got");
  ASSERT_EQ(py::len(got), 1u);
  py::object md = got[0].cast<py::tuple>()[1];
  EXPECT_EQ(py::str(py::type::of(md).attr("__name__")).cast<std::string>(), "KernelMetadata");
  EXPECT_EQ(md.attr("name").cast<std::string>(), info.name);
  EXPECT_EQ(md.attr("hash").cast<std::string>(), info.hash);
  EXPECT_EQ(md.attr("num_warps").cast<int>(), info.num_warps);
  EXPECT_EQ(md.attr("shared").cast<int>(), info.shared);
  EXPECT_EQ(py::repr(md.attr("target")).cast<std::string>(),
            py::repr(py::module_::import("triton.backends.compiler").attr("GPUTarget")("cuda", 90, 32))
                .cast<std::string>());
  // Fields in sorted order, as CompiledKernel makes its namedtuple.
  py::list fields(md.attr("_fields"));
  py::list sorted_fields = py::module_::import("builtins").attr("sorted")(fields);
  EXPECT_TRUE(fields.equal(sorted_fields));
  // Pointers reach it as stand-ins with Triton's tensor methods; scalars as Python values.
  py::dict args = got[0].cast<py::tuple>()[2];
  EXPECT_EQ(args["x_ptr"].attr("data_ptr")().cast<uint64_t>(), 0x100000u);
  EXPECT_EQ(args["x_ptr"].attr("element_size")().cast<int>(), 4);
  EXPECT_EQ(args["n_elements"].cast<int>(), 1000);
  EXPECT_FLOAT_EQ(args["alpha"].cast<float>(), 2.5f);
  EXPECT_EQ(py::repr(got[0].cast<py::tuple>()[0]).cast<std::string>(), "(3, 1, 1)");
}

// The Python package's launch (python/src/kernel.cpp) hands the caller's own objects and grid
// to the bridge around the runtime's launch; launch_metadata gets them, as from Triton's launch,
// and a hook's exception is kept for the package to raise as it is.
TEST_F(PythonLaunchHooks, PythonPackagesObjectsReachLaunchMetadata) {
  triton_jit::bridge::GilGuard gil;
  run_python(R"(
import triton_jit_bridge as bridge
class Half:  # a caller's tensor: what Triton's launch_metadata would be given
    def data_ptr(self): return 0x100000
    def element_size(self): return 2
knobs.runtime.launch_enter_hook = enter
previous = bridge.begin_host_call([{"x_ptr": Half(), "n_elements": 1000}, [16]])
)");
  {
    py::gil_scoped_release released;
    launch_with(test::config(16), 1000);
  }
  run_python(R"(
assert bridge.end_host_call(previous) is None
data = seen[0][1].get()
assert data["bytes"] == 2 * 1000 * 2, data  # the caller's object, not the runtime's stand-in
assert data["grid_seen"] == (16,), data       # the grid as the caller gave it
def refuse(metadata):
    raise KeyError("refused")
knobs.runtime.launch_enter_hook = refuse
previous = bridge.begin_host_call([{}, None])
)");
  {
    py::gil_scoped_release released;
    EXPECT_THROW(launch_with(test::config()), triton_jit::PythonError);
  }
  run_python(R"(
error = bridge.end_host_call(previous)
assert type(error) is KeyError and error.args == ("refused",), repr(error)
assert bridge.end_host_call(None) is None, "kept once"
)");
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

TEST_F(PythonLaunchHooks, UnsetAfterSetIsNotCalled) {
  triton_jit::bridge::GilGuard gil;
  run_python("knobs.runtime.launch_enter_hook = enter");
  EXPECT_NE(python_bit(), 0u);
  run_python("knobs.runtime.launch_enter_hook = saved[0]");
  EXPECT_EQ(python_bit(), 0u) << "back to Triton's default: nothing to call";
  {
    py::gil_scoped_release released;
    launch_with(test::config());
  }
  EXPECT_EQ(py::len(main_value("seen")), 0u);
  EXPECT_EQ(fake::state().launches.size(), 1u);
}

TEST_F(PythonLaunchHooks, ScopeRestoreIsSeen) {
  triton_jit::bridge::GilGuard gil;
  // knobs.runtime.scope() restores the knobs' __dict__ directly, past any __setattr__.
  run_python(R"(
knobs.runtime.launch_enter_hook = enter
with knobs.runtime.scope():
    knobs.runtime.launch_enter_hook = None
    knobs.runtime.launch_exit_hook = None
    import triton_jit_bridge.launch_hooks as lh
    inside = lh.hooks_active()
)");
  EXPECT_FALSE(main_value("inside").cast<bool>());
  EXPECT_NE(python_bit(), 0u) << "the enter hook is back after the scope";
  {
    py::gil_scoped_release released;
    launch_with(test::config());
  }
  EXPECT_EQ(py::len(main_value("seen")), 1u);
}

TEST_F(PythonLaunchHooks, HookChainAddAndRemoveAreSeen) {
  triton_jit::bridge::GilGuard gil;
  if (!py::hasattr(py::module_::import("triton.knobs"), "HookChain")) {
    GTEST_SKIP() << "this Triton (3.4) has no HookChain: a hook is set by assignment only";
  }
  run_python("knobs.runtime.launch_enter_hook.add(enter)");  // proton's way
  EXPECT_NE(python_bit(), 0u);
  {
    py::gil_scoped_release released;
    launch_with(test::config());
  }
  EXPECT_EQ(py::len(main_value("seen")), 1u);
  run_python("knobs.runtime.launch_enter_hook.remove(enter)");
  EXPECT_EQ(python_bit(), 0u);
  run_python("knobs.runtime.launch_exit_hook.calls.append(exit_)");
  EXPECT_NE(python_bit(), 0u) << "a change of the chain's list itself";
  run_python("knobs.runtime.launch_exit_hook.calls.clear()");
  EXPECT_EQ(python_bit(), 0u);
}

TEST_F(PythonLaunchHooks, RaisingEnterHookStopsTheLaunch) {
  triton_jit::bridge::GilGuard gil;
  run_python(R"(
def refuse(metadata):
    raise RuntimeError("profiler refused")
knobs.runtime.launch_enter_hook = refuse
knobs.runtime.launch_exit_hook = exit_
)");
  std::string message;
  {
    py::gil_scoped_release released;
    try {
      launch_with(test::config());
    } catch (const triton_jit::PythonError& e) {
      message = e.what();
    }
  }
  EXPECT_TRUE(test::contains(message, "launch_enter_hook")) << message;
  EXPECT_TRUE(test::contains(message, "RuntimeError: profiler refused")) << message;
  EXPECT_TRUE(fake::state().launches.empty()) << "Triton's launcher returns before launching";
  EXPECT_EQ(py::len(main_value("seen")), 0u) << "and calls no exit hook";
}

TEST_F(PythonLaunchHooks, RaisingExitHookAfterTheLaunch) {
  triton_jit::bridge::GilGuard gil;
  run_python(R"(
def refuse(metadata):
    raise ValueError("exit refused")
knobs.runtime.launch_exit_hook = refuse
)");
  {
    py::gil_scoped_release released;
    EXPECT_THROW(launch_with(test::config()), triton_jit::PythonError);
  }
  EXPECT_EQ(fake::state().launches.size(), 1u) << "the kernel was launched before the exit hook ran";
}

}  // namespace
