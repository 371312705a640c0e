// Which packed function serves a caller, and which files are read as packs: two functions of one
// name in files of one name never serve each other (each process without the sources gets its
// own function's kernel, or a clear error), duplicates a process could not tell apart are refused
// at pack time, and only regular files of a bounded size are read as packs. Each case runs
// store_probe (a fresh process, tests/cpu/store_probe.cpp) and compares what it launched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "../support/child_process.h"
#include "store/pack_file.h"
#include "store/sha256.h"
#include "test_util.h"
#include "triton_jit/triton_jit.h"

namespace fs = std::filesystem;

namespace {

using Probe = test_support::ChildRun;

using test::write_text;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The probe's kernel signature: add_kernel(x, y, out, n, BLOCK), which store_probe launches with
// BLOCK=256; `op` makes the bodies differ.
std::string kernel_source(const std::string& op) {
  return "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
         "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
         "    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
         "    mask = offsets < n\n"
         "    x = tl.load(x_ptr + offsets, mask=mask)\n"
         "    y = tl.load(y_ptr + offsets, mask=mask)\n"
         "    tl.store(out_ptr + offsets, x " +
         op + " y, mask=mask)\n";
}

class PackIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_pack_identity_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    test_support::write_unimportable_triton(root_ / "no_triton");
    quiet_.progress = triton_jit::Progress::Never;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  std::string file(const std::string& relative) const { return (root_ / relative).string(); }

  // The launch store_probe makes, as a manifest signature.
  std::string probe_signature(const std::string& kernel_file) const {
    auto& fn = triton_jit::TritonJitFunction::get(kernel_file, "add_kernel");
    return triton_jit::request(fn, triton_jit::LaunchConfig{triton_jit::Grid(4)},
                               reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                               reinterpret_cast<float*>(0x30000), 1000, 256)
        .signature;
  }

  // The SHA-256 of the cubin this process compiles from `kernel_file` for the probe's launch.
  std::string compiled_cubin(const std::string& kernel_file) const {
    auto& fn = triton_jit::TritonJitFunction::get(kernel_file, "add_kernel");
    const auto args = test::args(reinterpret_cast<const float*>(0x10000), reinterpret_cast<const float*>(0x20000),
                                 reinterpret_cast<float*>(0x30000), 1000, 256);
    const triton_jit::KernelInfo& info = fn.compile(triton_jit::LaunchConfig{triton_jit::Grid(4)}, test::span(args));
    return triton_jit::detail::sha256_hex(info.cubin);
  }

  triton_jit::PackInfo build(const std::string& manifest, const std::string& text, const std::string& pack) {
    write_text(root_ / manifest, text);
    return triton_jit::build_pack(file(manifest), file(pack), quiet_);
  }

  // store_probe on `kernel_file`'s add_kernel; `env`: VAR=value words; `args`: the probe's options.
  Probe run(const std::string& env, const std::string& kernel_file, const std::string& args) const {
    return test_support::run_child("timeout 120 env TRITON_JIT_TEST_KEEP_INDEX_DIR=1 TRITON_JIT_INDEX_DIR='" +
                                   (root_ / "empty_cache").string() + "' " + env + " '" STORE_PROBE_PATH "' '" +
                                   kernel_file + "' add_kernel " + args);
  }
  std::string no_python() const { return "PYTHONPATH='" + (root_ / "no_triton").string() + "'"; }

  fs::path root_;
  triton_jit::PrepareOptions quiet_;
};

// The case: a/kern.py and b/kern.py, both add_kernel, different bodies, in one pack; a
// process without the sources asks for each and gets each one's own kernel.
TEST_F(PackIdentityTest, FunctionsOfOneFileNameServeEachItsOwnKernelWithoutTheSources) {
  write_text(root_ / "a" / "kern.py", kernel_source("+"));
  write_text(root_ / "b" / "kern.py", kernel_source("-"));
  const std::string sig = probe_signature(file("a/kern.py"));
  const triton_jit::PackInfo info = build(
      "manifest.txt",
      "a/kern.py:add_kernel " + sig + " target=cuda:90\nb/kern.py:add_kernel " + sig + " target=cuda:90\n",
      "kernels.tjp");
  EXPECT_EQ(info.functions, (std::vector<std::string>{"a/kern.py:add_kernel", "b/kern.py:add_kernel"}));
  const std::string cubin_a = compiled_cubin(file("a/kern.py"));
  const std::string cubin_b = compiled_cubin(file("b/kern.py"));
  ASSERT_NE(cubin_a, cubin_b) << "the two bodies compile to one cubin: the test cannot tell them apart";

  fs::rename(root_ / "a", root_ / "a_moved");
  fs::rename(root_ / "b", root_ / "b_moved");
  const std::string offline = "TRITON_JIT_OFFLINE=1 " + no_python();
  for (const auto& [kernel, cubin] : {std::pair{file("a/kern.py"), cubin_a}, std::pair{file("b/kern.py"), cubin_b}}) {
    SCOPED_TRACE(kernel);
    for (const std::string how : {"--pack '" + file("kernels.tjp") + "'", std::string()}) {
      const std::string env = offline + (how.empty() ? " TRITON_JIT_PACKS='" + file("kernels.tjp") + "'" : "");
      const Probe p = run(env, kernel, how);
      ASSERT_EQ(p.status, 0) << p.output;
      EXPECT_EQ(p["pack_hits"], "1");
      EXPECT_EQ(p["compiles"], "0");
      EXPECT_EQ(p["cubin_sha256"], cubin) << "served another function's kernel";
    }
  }
  // Elsewhere, the same relative path still finds its function (a deployment's other folder).
  const Probe moved = run(offline, file("deploy/b/kern.py"), "--pack '" + file("kernels.tjp") + "'");
  ASSERT_EQ(moved.status, 0) << moved.output;
  EXPECT_EQ(moved["cubin_sha256"], cubin_b);
  // A path that fits neither is an error naming both, never one of them silently.
  const Probe neither = run(offline, file("kern.py"), "--pack '" + file("kernels.tjp") + "'");
  EXPECT_EQ(neither.status, 3) << neither.output;
  EXPECT_NE(neither.output.find("the loaded kernel packs hold 'add_kernel' of a/kern.py (in "), std::string::npos)
      << neither.output;
  EXPECT_NE(neither.output.find("b/kern.py (in "), std::string::npos) << neither.output;
  EXPECT_EQ(neither["cubin_sha256"], "<missing>");
}

// Two packs of one file each name both functions kern.py: a path that fits both is an error.
TEST_F(PackIdentityTest, PacksWhosePathsFitOneFileAlikeAreAnErrorNotTheFirstOnesKernel) {
  write_text(root_ / "a" / "kern.py", kernel_source("+"));
  write_text(root_ / "b" / "kern.py", kernel_source("-"));
  const std::string sig = probe_signature(file("a/kern.py"));
  EXPECT_EQ(build("a.txt", "a/kern.py:add_kernel " + sig + " target=cuda:90\n", "a.tjp").functions,
            std::vector<std::string>{"kern.py:add_kernel"});
  build("b.txt", "b/kern.py:add_kernel " + sig + " target=cuda:90\n", "b.tjp");
  const std::string cubin_b = compiled_cubin(file("b/kern.py"));
  fs::rename(root_ / "a", root_ / "a_moved");
  fs::rename(root_ / "b", root_ / "b_moved");
  const Probe p = run(
      "TRITON_JIT_OFFLINE=1 " + no_python() + " TRITON_JIT_PACKS='" + file("a.tjp") + ":" + file("b.tjp") + "'",
      file("b/kern.py"), "");
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_NE(p.output.find("two packed functions of different sources fit that path: kern.py (in " + file("a.tjp") +
                          ") and kern.py (in " + file("b.tjp") + ")"),
            std::string::npos)
      << p.output;
  // With its source there, each file is matched by its contents, whatever the packs' paths.
  fs::rename(root_ / "b_moved", root_ / "b");
  const Probe sources = run(no_python() + " TRITON_JIT_PACKS='" + file("a.tjp") + ":" + file("b.tjp") + "'",
                            file("b/kern.py"), "");
  ASSERT_EQ(sources.status, 0) << sources.output;
  EXPECT_EQ(sources["pack_hits"], "1");
  EXPECT_EQ(sources["cubin_sha256"], cubin_b);
}

TEST_F(PackIdentityTest, DuplicatesThatCannotBeToldApartAreRefusedBeforeAnythingCompiles) {
  // kern.py and sub/kern.py: a path ending in sub/kern.py ends in kern.py too.
  write_text(root_ / "kern.py", kernel_source("+"));
  write_text(root_ / "sub" / "kern.py", kernel_source("-"));
  const std::string sig = probe_signature(file("kern.py"));
  try {
    build("manifest.txt",
          "kern.py:add_kernel " + sig + " target=cuda:90\nsub/kern.py:add_kernel " + sig + " target=cuda:90\n",
          "kernels.tjp");
    FAIL() << "a pack of two functions a process cannot tell apart was built";
  } catch (const triton_jit::PackError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("manifest.txt:2: sub/kern.py:add_kernel and kern.py:add_kernel (line 1, paths relative to "
                        "the pack's root " +
                        root_.string() + ")"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("cannot tell apart"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(root_ / "kernels.tjp"));
  // Copies of one source are one function wherever they lie: nothing to tell apart.
  write_text(root_ / "copy" / "kern.py", kernel_source("+"));
  EXPECT_EQ(build("same.txt",
                  "kern.py:add_kernel " + sig + " target=cuda:90\ncopy/kern.py:add_kernel " + sig + " target=cuda:90\n",
                  "same.tjp")
                .functions.size(),
            2u);
}

TEST_F(PackIdentityTest, TheManifestsRootLineSetsThePathsAProcessFindsFunctionsBy) {
  write_text(root_ / "src" / "ops" / "kern.py", kernel_source("+"));
  const std::string sig = probe_signature(file("src/ops/kern.py"));
  const triton_jit::PackInfo info = build(
      "build/manifest.txt", "root=../src  # paths relative to src\n../src/ops/kern.py:add_kernel " + sig + "\n",
      "k.tjp");
  EXPECT_EQ(info.functions, std::vector<std::string>{"ops/kern.py:add_kernel"});
  const std::string cubin = compiled_cubin(file("src/ops/kern.py"));
  fs::rename(root_ / "src", root_ / "src_moved");
  const Probe p = run("TRITON_JIT_OFFLINE=1 " + no_python(), file("app/ops/kern.py"), "--pack '" + file("k.tjp") + "'");
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(p["cubin_sha256"], cubin);
  const Probe other = run("TRITON_JIT_OFFLINE=1 " + no_python(), file("app/kern.py"), "--pack '" + file("k.tjp") + "'");
  EXPECT_EQ(other.status, 3) << other.output;
  // A file outside the stated root is refused, naming the line.
  fs::rename(root_ / "src_moved", root_ / "src");
  try {
    build("build/outside.txt", "root=../src/ops/deeper\n../src/ops/kern.py:add_kernel " + sig + "\n", "x.tjp");
    FAIL() << "a file outside the root was packed";
  } catch (const triton_jit::PackError& e) {
    EXPECT_NE(std::string(e.what()).find("outside.txt:2: ../src/ops/kern.py is not inside the pack's root"),
              std::string::npos)
        << e.what();
  }
}

// /dev/zero grew without bound and a FIFO hung: now each is one warning, at once.
TEST_F(PackIdentityTest, DevicesAndFifosInTritonJitPacksAreSkippedAtOnceWithOneWarningEach) {
  write_text(root_ / "kern.py", kernel_source("+"));
  build("manifest.txt", "kern.py:add_kernel " + probe_signature(file("kern.py")) + " target=cuda:90\n", "k.tjp");
  const std::string fifo = file("fifo.tjp");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const Probe p = run(no_python() + " TRITON_JIT_PACKS='/dev/zero:" + fifo + ":" + file("k.tjp") + "'", file("kern.py"),
                      "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(p.status, 0) << p.output;
  EXPECT_EQ(p["pack_hits"], "1");
  EXPECT_LT(seconds, 60.0);
  EXPECT_EQ(count(p.output, "cannot read the kernel pack /dev/zero: it is a character device, and a pack is read "
                            "only from a regular file"),
            1u)
      << p.output;
  EXPECT_EQ(count(p.output, "cannot read the kernel pack " + fifo +
                                ": it is a FIFO (named pipe), and a pack is read only from a regular file"),
            1u)
      << p.output;
  EXPECT_EQ(count(p.output, "warning: TRITON_JIT_PACKS"), 2u) << p.output;
}

TEST_F(PackIdentityTest, OnlyRegularFilesOfBoundedSizeAreReadAsPacks) {
  const auto message = [](const std::string& path) {
    try {
      triton_jit::read_pack_info(path);
    } catch (const triton_jit::PackError& e) {
      EXPECT_EQ(e.path(), path);
      return std::string(e.what());
    }
    return std::string("<read>");
  };
  EXPECT_NE(message("/dev/zero").find("cannot read the kernel pack /dev/zero: it is a character device"),
            std::string::npos);
  EXPECT_NE(message(root_.string()).find("it is a folder"), std::string::npos);
  // Sparse: the size is checked before a byte is read.
  const fs::path huge = root_ / "huge.tjp";
  std::ofstream(huge).put('x');
  std::error_code ec;
  fs::resize_file(huge, triton_jit::detail::kMaxPackBytes + 1, ec);
  if (ec) {
    std::cout << "SKIPPED the size limit: no sparse file of 4 GiB here (" << ec.message() << ")\n";
  } else {
    EXPECT_NE(message(huge.string()).find("it is 4294967297 bytes, more than the 4 GiB a pack may have"),
              std::string::npos)
        << message(huge.string());
  }
  fs::remove(huge, ec);
  // A link to a pack is read: the file it leads to is regular.
  write_text(root_ / "kern.py", kernel_source("+"));
  build("manifest.txt", "kern.py:add_kernel " + probe_signature(file("kern.py")) + " target=cuda:90\n", "k.tjp");
  fs::create_symlink(root_ / "k.tjp", root_ / "link.tjp");
  EXPECT_EQ(triton_jit::read_pack_info(file("link.tjp")).kernels, 1u);
  // A pack of the previous format says to rebuild it.
  std::string bytes = read_text(root_ / "k.tjp");
  bytes[8] = static_cast<char>(triton_jit::detail::kPackFormatVersion - 1);
  write_text(root_ / "old.tjp", bytes);
  EXPECT_NE(message(file("old.tjp"))
                .find("format version " + std::to_string(triton_jit::detail::kPackFormatVersion - 1) +
                      ", this runtime reads version " + std::to_string(triton_jit::detail::kPackFormatVersion) +
                      ". Rebuild it with `triton-jit pack MANIFEST --out "),
            std::string::npos)
      << message(file("old.tjp"));
}

// A line that repeats an option, or holds a NUL, is a one-line error naming the manifest and line.
TEST_F(PackIdentityTest, ManifestLinesRepeatingAnOptionOrHoldingANulAreRefused) {
  const std::string head = "# kernels\nkern.py:add_kernel *fp32:16,*fp32:16,*fp32:16,i32,256 ";
  const std::string nul(1, '\0');
  const std::pair<std::string, std::string> cases[] = {
      {head + "num_warps=4 num_warps=8\n", "m.txt:2: num_warps= is given twice (the second time as num_warps=8)"},
      {head + "target=cuda:90 target=cuda:80\n", "m.txt:2: target= is given twice"},
      {head + "maxnreg=32 num_stages=2 maxnreg=64\n", "m.txt:2: maxnreg= is given twice"},
      {"kern.py:add_kernel autotune key=(1024,) config=0 config=1\n", "m.txt:1: config= is given twice"},
      {head + "num_warps=4" + nul + " num_warps=8\n", "m.txt:2: the line holds a NUL byte (at column 66)"},
      {"# a comment " + nul + "\n", "m.txt:1: the line holds a NUL byte (at column 13)"},
      {std::string("kern.py\0.py:add_kernel *fp32:16\n", 32), "m.txt:1: the line holds a NUL byte (at column 8)"},
      {"root=a\nroot=b\n", "m.txt:2: root= is given twice (first on line 1)"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(expected);
    write_text(root_ / "m.txt", text);
    try {
      triton_jit::read_pack_manifest(file("m.txt"));
      ADD_FAILURE() << "the manifest was accepted";
    } catch (const triton_jit::PackError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(file("m.txt") + ":", 0), 0u) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.find('\0'), std::string::npos);
    }
  }
  // A manifest is read in bounded steps: /dev/zero named as one ends at once.
  try {
    triton_jit::read_pack_manifest("/dev/zero");
    ADD_FAILURE() << "/dev/zero read as a manifest";
  } catch (const triton_jit::PackError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the pack manifest /dev/zero: it is larger than 64 MiB"),
              std::string::npos)
        << e.what();
  }
  // Each option once is fine, and the root reaches every entry.
  write_text(root_ / "m.txt", head + "num_warps=4 num_stages=2 maxnreg=64 target=cuda:90\nroot=.\n");
  const auto entries = triton_jit::read_pack_manifest(file("m.txt"));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].num_warps, 4);
  EXPECT_EQ(entries[0].root, ".");
}

}  // namespace
