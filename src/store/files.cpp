#include "store/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "store/binary_io.h"
#include "store/index_folders.h"
#include "store/sha256.h"

namespace triton_jit::detail {

std::optional<FileStamp> stat_file(const std::string& path) noexcept {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileStamp s;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

std::optional<std::string> read_file(const std::string& path, std::string* error, int* error_number) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (error) *error = std::strerror(e);
    if (error_number) *error_number = e;
    return std::nullopt;
  }
  auto out = read_open_file(fd, UINT64_MAX, error, error_number);
  ::close(fd);
  return out;
}

std::optional<std::string> read_open_file(int fd, uint64_t limit, std::string* error, int* error_number) {
  auto fail = [&](int e) -> std::optional<std::string> {
    if (error) *error = std::strerror(e);
    if (error_number) *error_number = e;
    return std::nullopt;
  };
  std::string out;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    if (static_cast<uint64_t>(st.st_size) > limit) return fail(EFBIG);
    out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno);
    }
    if (out.size() + static_cast<size_t>(n) > limit) return fail(EFBIG);
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

namespace {

// One attempt of write_file_atomically. Returns 0, or the errno of the step that failed with its
// text in *why; the temporary file is gone either way.
int write_once(const std::string& path, const std::string& tmp, std::string_view bytes, std::string* why) {
  auto fail = [&](int fd) {
    const int e = errno;
    *why = std::strerror(e);
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int e = errno;
    *why = std::strerror(e);
    return e;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fd);
    }
    done += static_cast<size_t>(n);
  }
  // On disk before it gets its name: after a crash or power loss the name holds the old file or
  // the whole new one, never a file whose blocks were not written yet.
  if (::fsync(fd) != 0) return fail(fd);
  if (::close(fd) != 0) return fail(-1);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(-1);
  return 0;
}

}  // namespace

std::string write_file_atomically(const std::string& path, std::string_view bytes, int* error_number) {
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path target(path);
  std::string why;
  int error = 0;
  // Another process may remove the temporary file or the folder between our steps (`rm -r` of
  // the index): then the folder is made again and the write retried, after a pause that grows
  // (1 ms, 2 ms, ... 64 ms) so that a removal in progress can finish.
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1 << (attempt - 1)));
    // A bare file name has no parent to make.
    if (target.has_parent_path()) {
      if (const int made = make_folders(target.parent_path().string())) {
        why = std::strerror(made);
        error = made;
        if (made == ENOENT) continue;  // a parent went while its child was made
        break;
      }
    }
    // Unique per process and call, so concurrent writers never share a temporary file.
    const std::string tmp = path + std::string(kTempInfix) + std::to_string(::getpid()) + "." +
                            std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
    error = write_once(path, tmp, bytes, &why);
    if (error == 0) return {};
    if (error != ENOENT) break;
  }
  if (error_number) *error_number = error;
  return why;
}

bool is_temp_file(std::string_view name) { return name.find(kTempInfix) != std::string_view::npos; }

namespace {
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 32;
}

std::string seal(std::string_view magic8, uint32_t version, std::string_view payload) {
  BinaryWriter w;
  w.raw(magic8.substr(0, 8));
  w.u32(version);
  w.u32(0);  // flags, reserved
  w.u64(payload.size());
  uint8_t digest[32];
  Sha256().update(payload).digest(digest);
  w.raw(std::string_view(reinterpret_cast<const char*>(digest), 32));
  w.raw(payload);
  return w.take();
}

std::string_view unseal(std::string_view file, std::string_view magic8, uint32_t version) {
  if (file.size() < kHeaderSize) {
    throw FormatError{"truncated: " + std::to_string(file.size()) + " bytes, shorter than the header"};
  }
  BinaryReader r(file);
  if (r.raw(8) != magic8.substr(0, 8)) throw FormatError{"not a " + std::string(magic8) + " file (bad magic)"};
  const uint32_t found = r.u32();
  if (found != version) {
    throw FormatError{"format version " + std::to_string(found) + ", this runtime reads version " +
                      std::to_string(version)};
  }
  r.u32();
  const uint64_t size = r.u64();
  std::string_view digest = r.raw(32);
  if (size != r.remaining()) {
    throw FormatError{"truncated or padded: header says " + std::to_string(size) + " payload bytes, file has " +
                      std::to_string(r.remaining())};
  }
  std::string_view payload = r.raw(static_cast<size_t>(size));
  uint8_t actual[32];
  Sha256().update(payload).digest(actual);
  if (std::memcmp(actual, digest.data(), 32) != 0) throw FormatError{"checksum mismatch (the file is damaged)"};
  return payload;
}

}  // namespace triton_jit::detail
