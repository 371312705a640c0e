// The kernel index is trusted like code (docs/FORMATS.md#trust): links below its folder are never
// followed (clear, prune, listing, lock files, entries), folders another user owns or may write
// are refused with one warning, and a clean-up racing a writer does not turn its writes off.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "store/compile_lock.h"
#include "store/index_entries.h"
#include "test_util.h"
#include "triton_jit/index.h"

namespace fs = std::filesystem;

namespace {

using triton_jit::detail::CompileLock;
using triton_jit::detail::KernelIndex;
using triton_jit::detail::KernelRecord;

constexpr const char* kEnvironment = "trust-environment";

KernelRecord record_of(int slot) {
  KernelRecord r;
  r.function_path = "/trust/kernels.py";
  r.function_name = "trust_kernel";
  r.key.signature = "*fp32:16,i32," + std::to_string(slot);
  r.key.target = triton_jit::Target{"cuda", 90, 32};
  r.created_unix = 1;
  r.kernel.info.name = "trust_kernel";
  r.kernel.info.target = r.key.target;
  r.kernel.info.cubin = std::string(1024 + slot, static_cast<char>('a' + slot % 26));
  r.kernel.info.triton_version = "trust";
  return r;
}

using test::write_text;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

class IndexTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("TRITON_JIT_TRUST_SHARED_INDEX");
    root_ = fs::temp_directory_path() / ("triton_jit_trust_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::permissions(root_, fs::perms(0755));
    index_ = root_ / "index";
    use_index();
  }
  void TearDown() override {
    ::unsetenv("TRITON_JIT_TRUST_SHARED_INDEX");
    KernelIndex::instance().set_directory(std::nullopt);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A fresh look at the index, as a new process takes (folders checked again, warnings again).
  void use_index() { KernelIndex::instance().set_directory(index_.string()); }
  KernelIndex& index() { return KernelIndex::instance(); }

  std::string entry_file(const KernelRecord& r) const {
    const std::string id = KernelIndex::kernel_id(r.function_path, r.function_name, r.key, kEnvironment);
    return (index_ / "v3" / "kernels" / id.substr(0, 2) / (id + ".tjk")).string();
  }
  bool loads(const KernelRecord& r) {
    return index().load(r.function_path, r.function_name, r.key, kEnvironment).has_value();
  }

  fs::path root_;
  fs::path index_;
};

// ---- links below the index folder ----

TEST_F(IndexTrustTest, ClearLeavesWhatALinkedTablesFolderPointsTo) {
  index().store(record_of(1), kEnvironment);
  write_text(root_ / "precious" / "thesis.tex", "years of work");
  fs::create_directory_symlink(root_ / "precious", index_ / "v3" / "tables");
  ::testing::internal::CaptureStderr();
  const size_t removed = triton_jit::clear_index();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(removed, 1u);
  EXPECT_TRUE(fs::exists(root_ / "precious" / "thesis.tex"));
  EXPECT_TRUE(fs::is_symlink(index_ / "v3" / "tables")) << "the link is left alone";
  EXPECT_NE(err.find("skipped symbolic link " + (index_ / "v3" / "tables").string()), std::string::npos) << err;
}

TEST_F(IndexTrustTest, PruneLeavesWhatALinkedFolderPointsTo) {
  index().store(record_of(1), kEnvironment);
  // What prune removes in a real folder: an abandoned temporary file, a damaged entry.
  const fs::path old_temp = root_ / "precious" / "notes.tjt.tmp.1.1";
  write_text(old_temp, "mine");
  write_text(root_ / "precious" / "ab" / "draft.tjk", "mine too");
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(old_temp, two_hours_ago);
  fs::create_directory_symlink(root_ / "precious", index_ / "v3" / "tables");
  fs::create_directory_symlink(root_ / "precious", index_ / "v3" / "kernels" / "ff");
  ::testing::internal::CaptureStderr();
  triton_jit::prune_index(0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(fs::exists(old_temp));
  EXPECT_TRUE(fs::exists(root_ / "precious" / "ab" / "draft.tjk"));
  EXPECT_NE(err.find("skipped symbolic link " + (index_ / "v3" / "tables").string()), std::string::npos) << err;
  EXPECT_NE(err.find("skipped symbolic link " + (index_ / "v3" / "kernels" / "ff").string()), std::string::npos) << err;
}

TEST_F(IndexTrustTest, ListingSkipsALinkedEntry) {
  const KernelRecord r = record_of(2);
  index().store(r, kEnvironment);
  const fs::path real = entry_file(r);
  const fs::path elsewhere = root_ / "elsewhere.tjk";
  fs::rename(real, elsewhere);
  fs::create_symlink(elsewhere, real);
  ::testing::internal::CaptureStderr();
  const auto entries = triton_jit::list_index();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(entries.empty());
  EXPECT_NE(err.find("skipped symbolic link " + real.string()), std::string::npos) << err;
}

TEST_F(IndexTrustTest, ALinkPlantedAsAnEntryIsNotRead) {
  // The planted record is a real one for this key, stored in another index.
  const KernelRecord r = record_of(3);
  const fs::path other = root_ / "other";
  KernelIndex::instance().set_directory(other.string());
  index().store(r, kEnvironment);
  ASSERT_TRUE(loads(r));
  const fs::path planted = other / fs::relative(entry_file(r), index_);
  use_index();
  index().store(record_of(4), kEnvironment);  // the folders exist and are this user's
  fs::create_directories(fs::path(entry_file(r)).parent_path());
  fs::create_symlink(planted, entry_file(r));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r)) << "an entry is never read through a link";
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("symbolic link"), std::string::npos) << err;
  // Storing the kernel replaces the link, not what it points to.
  const std::string before = [&] {
    std::ifstream in(planted, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  KernelRecord changed = r;
  changed.created_unix = 2;
  index().store(changed, kEnvironment);
  EXPECT_FALSE(fs::is_symlink(entry_file(r)));
  std::ifstream in(planted, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), before);
}

TEST_F(IndexTrustTest, ADanglingLockLinkIsNotFollowed) {
  const KernelRecord r = record_of(5);
  const std::string lock_file = index().compile_lock_file(r.function_path, r.function_name, r.key, kEnvironment);
  ASSERT_FALSE(lock_file.empty());
  const fs::path victim = root_ / "victim";
  fs::create_symlink(victim, lock_file);
  ::testing::internal::CaptureStderr();
  const CompileLock lock = CompileLock::take(lock_file, std::chrono::milliseconds(100));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(lock.state(), CompileLock::State::Unavailable) << "compiles without the lock";
  EXPECT_FALSE(fs::exists(fs::symlink_status(victim))) << "the link's target must not be created";
  EXPECT_NE(err.find("is a symbolic link"), std::string::npos) << err;
}

TEST_F(IndexTrustTest, ALinkOnTheWayToEntriesTurnsTheIndexOff) {
  const KernelRecord r = record_of(6);
  index().store(r, kEnvironment);
  const fs::path moved = root_ / "moved_kernels";
  fs::rename(index_ / "v3" / "kernels", moved);
  fs::create_directory_symlink(moved, index_ / "v3" / "kernels");
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r));
  index().store(record_of(7), kEnvironment);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(err, "warning: not using the kernel index"), 1u) << err;
  EXPECT_NE(err.find("is a symbolic link"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(moved / fs::relative(entry_file(record_of(7)), index_ / "v3" / "kernels")));
}

// ---- folders another user owns or may write ----

TEST_F(IndexTrustTest, AWorldWritableFolderIsRefusedWithOneWarning) {
  const KernelRecord r = record_of(8);
  index().store(r, kEnvironment);
  fs::permissions(index_ / "v3", fs::perms(0777));
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r));
  EXPECT_FALSE(loads(r));
  index().store(record_of(9), kEnvironment);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(err, "warning: not using the kernel index"), 1u) << err;
  EXPECT_NE(err.find((index_ / "v3").string() + " is writable by others (mode 0777)"), std::string::npos) << err;
  EXPECT_NE(err.find("TRITON_JIT_TRUST_SHARED_INDEX"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(entry_file(record_of(9))));
  EXPECT_EQ(triton_jit::index_status().state, triton_jit::IndexStatus::State::Unusable);

  // The sticky bit (as /tmp has) keeps others from replacing this user's files: accepted.
  fs::permissions(index_ / "v3", fs::perms(01777));
  use_index();
  EXPECT_TRUE(loads(r));
}

TEST_F(IndexTrustTest, AGroupWritableEntryFolderIsRefused) {
  const KernelRecord r = record_of(10);
  index().store(r, kEnvironment);
  const fs::path folder = fs::path(entry_file(r)).parent_path();
  // A group that is not this user's private group (which a umask of 0002 makes writable).
  if (::chown(folder.c_str(), static_cast<uid_t>(-1), 12345) != 0) {
    GTEST_SKIP() << "cannot give a folder to group 12345 here (needs root; CI runs as root)";
  }
  fs::permissions(folder, fs::perms(0775));
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("is writable by its group (mode 0775)"), std::string::npos) << err;

  // Root's own group, which only root is in, as a umask of 0002 leaves a user's private group:
  // accepted.
  if (::geteuid() != 0) return;
  ASSERT_EQ(::chown(folder.c_str(), static_cast<uid_t>(-1), 0), 0);
  use_index();
  EXPECT_TRUE(loads(r));
}

TEST_F(IndexTrustTest, TheSharedIndexOptOutAcceptsIt) {
  const KernelRecord r = record_of(11);
  index().store(r, kEnvironment);
  fs::permissions(index_, fs::perms(0777));
  ::setenv("TRITON_JIT_TRUST_SHARED_INDEX", "1", 1);
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(loads(r));
  index().store(record_of(12), kEnvironment);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  EXPECT_TRUE(fs::exists(entry_file(record_of(12))));
}

TEST_F(IndexTrustTest, AFolderOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another uid (CI runs as root)";
  const KernelRecord r = record_of(13);
  index().store(r, kEnvironment);
  ASSERT_EQ(::chown((index_ / "v3").c_str(), 12345, 12345), 0);
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r));
  index().store(record_of(14), kEnvironment);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(err, "warning: not using the kernel index"), 1u) << err;
  EXPECT_NE(err.find((index_ / "v3").string() + " is owned by uid 12345, not by this user (uid 0)"), std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(entry_file(record_of(14))));

  ::setenv("TRITON_JIT_TRUST_SHARED_INDEX", "1", 1);
  use_index();
  EXPECT_TRUE(loads(r));
}

TEST_F(IndexTrustTest, AnEntryFileOwnedByAnotherUserIsNotRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid (CI runs as root)";
  const KernelRecord r = record_of(15);
  index().store(r, kEnvironment);
  ASSERT_EQ(::chown(entry_file(r).c_str(), 12345, 12345), 0);
  use_index();
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(loads(r));
  ::testing::internal::GetCapturedStderr();
}

// ---- a clean-up racing a writer ----

TEST_F(IndexTrustTest, WritesSurviveAClearInALoop) {
  index().store(record_of(0), kEnvironment);
  std::atomic<bool> stop{false};
  std::atomic<int> clears{0};
  std::string clear_failure;
  std::thread clearer([&] {
    while (!stop.load()) {
      try {
        triton_jit::clear_index();
      } catch (const std::exception& e) {
        clear_failure = e.what();
        return;
      }
      // Now and then a whole folder goes too, as `rm -r` of the index would do.
      if (clears.fetch_add(1) % 16 == 0) {
        std::error_code ec;
        fs::remove_all(index_ / "v3" / "kernels", ec);
      }
    }
  });
  ::testing::internal::CaptureStderr();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  int stores = 0;
  while (std::chrono::steady_clock::now() < end) index().store(record_of(stores++ % 32), kEnvironment);
  stop = true;
  clearer.join();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(clear_failure, "");
  EXPECT_EQ(err.find("cannot write the kernel index"), std::string::npos) << err;
  // Writing is still on: a store after the clean-up lands.
  const KernelRecord last = record_of(40);
  index().store(last, kEnvironment);
  EXPECT_TRUE(loads(last)) << "writes were turned off after " << stores << " stores and " << clears << " clears";
  std::printf("stores=%d clears=%d\n", stores, clears.load());
}

}  // namespace
