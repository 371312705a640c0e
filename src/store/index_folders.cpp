#include "store/index_folders.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace triton_jit::detail {
namespace {

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// The parts of "a/b/c", without empty ones.
std::vector<std::string> parts_of(const std::string& relative) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= relative.size()) {
    const size_t end = relative.find('/', start);
    const std::string part = relative.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty()) out.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// A folder's status as check_folders judges it: empty, or why it is refused.
std::string folder_problem(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "is a symbolic link (links below the index folder are never followed)";
  if (!S_ISDIR(st.st_mode)) return "is not a folder";
  return untrusted_reason(st);
}

constexpr int kDeepestFolder = 4;  // v3/kernels/XX is the deepest; more is not the index's

void walk_folder(int fd, const std::string& path, int depth,
                 const std::function<void(int, const std::string&, const struct stat&, const std::string&)>& visit,
                 WalkNotes* notes) {
  const int listing = ::dup(fd);
  if (listing < 0) return;
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // removed meanwhile
    const std::string child = path + "/" + name;
    if (S_ISLNK(st.st_mode)) {
      notes->links.push_back(child);
    } else if (S_ISDIR(st.st_mode)) {
      if (depth >= kDeepestFolder) continue;
      const int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      struct stat opened;
      if (::fstat(sub, &opened) == 0) {
        if (std::string why = untrusted_reason(opened); !why.empty()) {
          notes->refused.push_back(child + " (" + why + ")");
        } else {
          walk_folder(sub, child, depth + 1, visit, notes);
        }
      }
      ::close(sub);
    } else if (S_ISREG(st.st_mode)) {
      visit(fd, name, st, child);
    }
  }
  ::closedir(d);
}

// Whether `gid` is `owner`'s private group (a group named as the user, the user's primary group,
// no other member listed): what a umask of 0002 makes group-writable is then writable by the
// owner alone (Debian's ssh accepts the same).
bool private_group_of(uid_t owner, gid_t gid) {
  std::vector<char> buffer(16384);
  struct passwd pw;
  struct passwd* user = nullptr;
  if (::getpwuid_r(owner, &pw, buffer.data(), buffer.size(), &user) != 0 || user == nullptr) return false;
  if (user->pw_gid != gid) return false;
  const std::string name = user->pw_name;
  std::vector<char> group_buffer(65536);
  struct group gr;
  struct group* group = nullptr;
  if (::getgrgid_r(gid, &gr, group_buffer.data(), group_buffer.size(), &group) != 0 || group == nullptr) return false;
  if (name != group->gr_name) return false;
  for (char** member = group->gr_mem; *member != nullptr; ++member) {
    if (name != *member) return false;
  }
  return true;
}

}  // namespace

bool shared_index_trusted() {
  const char* env = std::getenv("TRITON_JIT_TRUST_SHARED_INDEX");
  return env != nullptr && (std::strcmp(env, "1") == 0 || std::strcmp(env, "true") == 0 ||
                            std::strcmp(env, "yes") == 0 || std::strcmp(env, "on") == 0);
}

std::string untrusted_reason(const struct stat& st) {
  if (shared_index_trusted()) return {};
  const uid_t me = ::geteuid();
  // Root's files are as trusted as the runtime itself: root could replace it too.
  if (st.st_uid != me && st.st_uid != 0) {
    return "is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(me) + ")";
  }
  const bool sticky_folder = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;
  if (sticky_folder) return {};
  if ((st.st_mode & S_IWOTH) != 0) return "is writable by others (mode " + octal_mode(st.st_mode) + ")";
  if ((st.st_mode & S_IWGRP) != 0 && !private_group_of(st.st_uid, st.st_gid)) {
    return "is writable by its group (mode " + octal_mode(st.st_mode) + ")";
  }
  return {};
}

int make_folders(const std::string& path) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string prefix = path.substr(0, end);
    struct stat st;
    if (!prefix.empty() && ::stat(prefix.c_str(), &st) != 0) {
      if (errno != ENOENT) return errno;
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    } else if (!prefix.empty() && !S_ISDIR(st.st_mode)) {
      return ENOTDIR;
    }
    if (end == std::string::npos) return 0;
  }
}

FolderCheck check_folders(const std::string& dir, const std::string& relative, bool create) {
  FolderCheck c;
  auto result = [&](FolderCheck::State state, const std::string& folder, std::string problem, int error) {
    c.state = state;
    c.folder = folder;
    c.problem = std::move(problem);
    c.error = error;
    return c;
  };
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    if (e != ENOENT) return result(FolderCheck::State::Failed, dir, std::strerror(e), e);
    if (!create) return result(FolderCheck::State::Missing, dir, "does not exist", e);
    if (const int made = make_folders(dir)) return result(FolderCheck::State::Failed, dir, std::strerror(made), made);
    if (::stat(dir.c_str(), &st) != 0) return result(FolderCheck::State::Failed, dir, std::strerror(errno), errno);
  }
  if (std::string why = folder_problem(st); !why.empty()) return result(FolderCheck::State::Refused, dir, why, 0);
  std::string path = dir;
  for (const std::string& part : parts_of(relative)) {
    path += "/" + part;
    if (::lstat(path.c_str(), &st) != 0) {
      const int e = errno;
      if (e != ENOENT) return result(FolderCheck::State::Failed, path, std::strerror(e), e);
      if (!create) return result(FolderCheck::State::Missing, path, "does not exist", e);
      if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        const int m = errno;
        return result(FolderCheck::State::Failed, path, std::strerror(m), m);
      }
      if (::lstat(path.c_str(), &st) != 0) {
        const int l = errno;  // removed again at once (a concurrent clean-up): the caller retries
        return result(FolderCheck::State::Failed, path, std::strerror(l), l);
      }
    }
    if (std::string why = folder_problem(st); !why.empty()) return result(FolderCheck::State::Refused, path, why, 0);
  }
  return c;
}

namespace {

// Whether the opened folder `fd` (at `path`) is trusted; when not, notes why and closes it.
bool keep_if_trusted(int fd, const std::string& path, WalkNotes* notes) {
  struct stat st;
  if (::fstat(fd, &st) == 0) {
    const std::string why = untrusted_reason(st);
    if (why.empty()) return true;
    notes->refused.push_back(path + " (" + why + ")");
  }
  ::close(fd);
  return false;
}

}  // namespace

void walk_files(const std::string& dir, const std::string& relative,
                const std::function<void(int, const std::string&, const struct stat&, const std::string&)>& visit,
                WalkNotes* notes) {
  // The index folder itself may be a link: the user chose it.
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !keep_if_trusted(fd, dir, notes)) return;
  std::string path = dir;
  struct stat st;
  for (const std::string& part : parts_of(relative)) {
    path += "/" + part;
    if (::fstatat(fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {  // missing: nothing to visit
      ::close(fd);
      return;
    }
    if (S_ISLNK(st.st_mode)) notes->links.push_back(path);
    const int sub = S_ISDIR(st.st_mode) ? ::openat(fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                        : -1;
    ::close(fd);
    if (sub < 0) return;
    fd = sub;
    if (!keep_if_trusted(fd, path, notes)) return;
  }
  walk_folder(fd, path, static_cast<int>(parts_of(relative).size()), visit, notes);
  ::close(fd);
}

int open_entry_for_reading(const std::string& path) {
  // O_NONBLOCK: a FIFO planted as an entry must not block the open; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !untrusted_reason(st).empty()) {
    ::close(fd);
    errno = EPERM;
    return -1;
  }
  return fd;
}

}  // namespace triton_jit::detail
