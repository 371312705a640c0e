// The compile lock (src/store/compile_lock.h) on its own: held, busy, released by the holder's
// death, a bounded wait, and a directory that cannot hold it. Other holders are child processes
// (fork) that take the lock and sleep; the resolver's use of it is tested across processes in
// store_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "store/compile_lock.h"

namespace fs = std::filesystem;
using triton_jit::detail::CompileLock;
using namespace std::chrono_literals;

namespace {

class CompileLockTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("triton_jit_lock_" + std::to_string(::getpid()) + "_" +
                                         testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    file_ = (root_ / "v3" / "locks" / "ab" / "abcdef.lock").string();
  }
  void TearDown() override {
    if (holder_ > 0) {
      ::kill(holder_, SIGKILL);
      ::waitpid(holder_, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A child process that takes the lock, says so by creating `ready`, and sleeps until killed.
  void start_holder() {
    const std::string ready = (root_ / "ready").string();
    holder_ = ::fork();
    ASSERT_GE(holder_, 0);
    if (holder_ == 0) {
      CompileLock lock = CompileLock::take(file_, 0ms);
      if (!lock.held()) ::_exit(1);
      std::ofstream(ready) << "held";
      for (;;) ::pause();
    }
    for (int i = 0; i < 10000 && !fs::exists(ready); ++i) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(fs::exists(ready)) << "the holder never took the lock";
  }

  fs::path root_;
  std::string file_;
  pid_t holder_ = -1;
};

TEST_F(CompileLockTest, OneHolderAtATimeEvenWithinAProcess) {
  CompileLock first = CompileLock::take(file_, 0ms);
  ASSERT_TRUE(first.held());
  EXPECT_FALSE(first.waited());
  EXPECT_TRUE(fs::exists(file_)) << "the lock file and its folders are created";
  // Another open of the file (another thread's miss) is another holder: it is excluded too.
  EXPECT_EQ(CompileLock::take(file_, 0ms).state(), CompileLock::State::Busy);
  first = CompileLock();  // released
  EXPECT_TRUE(CompileLock::take(file_, 0ms).held());
  EXPECT_TRUE(fs::exists(file_)) << "lock files stay: removing one would let a third process in";
}

TEST_F(CompileLockTest, AWaiterGetsTheLockWhenTheHolderIsKilled) {
  start_holder();
  EXPECT_EQ(CompileLock::take(file_, 0ms).state(), CompileLock::State::Busy);
  std::thread killer([this] {
    std::this_thread::sleep_for(200ms);
    ::kill(holder_, SIGKILL);
  });
  const auto start = std::chrono::steady_clock::now();
  CompileLock lock = CompileLock::take(file_, 20s);
  const auto waited = std::chrono::steady_clock::now() - start;
  killer.join();
  ::waitpid(holder_, nullptr, 0);
  holder_ = -1;
  EXPECT_TRUE(lock.held());
  EXPECT_TRUE(lock.waited());
  EXPECT_GE(waited, 150ms);
  EXPECT_LT(waited, 10s) << "the system releases a dead holder's lock";
}

TEST_F(CompileLockTest, AWaitThatRunsOutWarnsOnceAndLetsTheCallerCompile) {
  start_holder();
  testing::internal::CaptureStderr();
  const auto start = std::chrono::steady_clock::now();
  CompileLock first = CompileLock::take(file_, 300ms);
  CompileLock second = CompileLock::take(file_, 100ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(first.state(), CompileLock::State::Unavailable);
  EXPECT_EQ(second.state(), CompileLock::State::Unavailable);
  EXPECT_GE(waited, 400ms);
  EXPECT_NE(err.find("for another process compiling the same kernel"), std::string::npos) << err;
  EXPECT_NE(err.find("TRITON_JIT_COMPILE_LOCK_TIMEOUT"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << "one warning: " << err;
}

TEST_F(CompileLockTest, NoLockWhereNoFileCanBeMadeOrNoIndexIsSet) {
  std::ofstream(root_ / "a_file") << "x";
  CompileLock lock = CompileLock::take((root_ / "a_file" / "v3" / "x.lock").string(), 1s);
  EXPECT_EQ(lock.state(), CompileLock::State::Unavailable);
  EXPECT_FALSE(lock.waited());
  EXPECT_EQ(CompileLock::take("", 1s).state(), CompileLock::State::Unavailable);
}

}  // namespace
