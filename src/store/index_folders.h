#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

namespace triton_jit::detail {

// The index holds executable content (cubins a launch runs), so its folders are trusted like code
// (docs/FORMATS.md#trust): the index folder and every folder below it must belong to the effective
// user (or root) and must not be writable by others, nor by a group other than the owner's private
// group, unless the sticky bit is set, as ssh and git's safe.directory require. TRITON_JIT_TRUST_SHARED_INDEX=1 waives the owner and mode
// checks for a deliberately shared index. Links are never followed below the index folder.

// Why a folder or file with this status is not trusted; empty when it is.
std::string untrusted_reason(const struct stat& st);
// Whether TRITON_JIT_TRUST_SHARED_INDEX waives the owner and mode checks.
bool shared_index_trusted();

// The outcome of checking the folders DIR/RELATIVE (RELATIVE: "v3/kernels/ab").
struct FolderCheck {
  enum class State {
    Ok,         // every folder exists (or was made) and is trusted
    Missing,    // a folder does not exist (and was not to be made)
    Refused,    // a folder is a link, not a folder, or not trusted: `folder` and `problem` say
    Failed,     // a folder could not be made or looked at: `error` (errno) and `problem`
  };
  State state = State::Ok;
  std::string folder;
  std::string problem;
  int error = 0;
};

// Checks DIR (following a link: the user chose it) and each folder of RELATIVE below it (never a
// link), making missing ones with mode 0755 (less the umask) when `create`.
FolderCheck check_folders(const std::string& dir, const std::string& relative, bool create);

// Makes the missing folders of `path` (mode 0755 less the umask); 0 or the errno of the failure.
int make_folders(const std::string& path);

// What walk_files reports besides files.
struct WalkNotes {
  std::vector<std::string> links;      // symbolic links found (and left alone)
  std::vector<std::string> refused;    // folders skipped: "FOLDER (reason)"
};

// Visits the regular files below DIR/RELATIVE without following links, through folder
// descriptors: visit(folder_fd, name, status, path). A missing DIR/RELATIVE visits nothing.
void walk_files(const std::string& dir, const std::string& relative,
                const std::function<void(int folder_fd, const std::string& name, const struct stat& st,
                                         const std::string& path)>& visit,
                WalkNotes* notes);

// Opens DIR/RELATIVE (a file) for reading without following a link in its last part; -1 with
// errno, ELOOP for a link, EPERM for a file that is not a regular file or not trusted.
int open_entry_for_reading(const std::string& path);

}  // namespace triton_jit::detail
