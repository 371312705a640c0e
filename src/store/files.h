#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace triton_jit::detail {

struct FileStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

// Size and modification time, or nothing when the file cannot be stat'ed.
std::optional<FileStamp> stat_file(const std::string& path) noexcept;

// The whole file, or nothing (with errno's text in *error and errno in *error_number when given).
std::optional<std::string> read_file(const std::string& path, std::string* error = nullptr,
                                     int* error_number = nullptr);
// The rest of the open file `fd` (not closed), at most `limit` bytes: a longer file is an error
// (EFBIG), as is a read error; the same outputs as read_file.
std::optional<std::string> read_open_file(int fd, uint64_t limit, std::string* error = nullptr,
                                          int* error_number = nullptr);

// Writes `bytes` to a temporary file beside `path` ("<path>.tmp.<pid>.<n>"), flushes it to disk,
// then renames it over `path`: readers and concurrent writers see the old file or the new one,
// never a mix, and a failed write leaves neither a temporary file nor a changed `path`. Creates
// missing directories (mode 0755 less the umask); never writes through a link in place of the
// temporary file. Returns an empty string on success, else the reason (errno's text), with the
// errno in *error_number when given.
std::string write_file_atomically(const std::string& path, std::string_view bytes, int* error_number = nullptr);

// Whether a file name is one of write_file_atomically's temporary files: a writer's work in
// progress, or what a killed writer left behind; never an entry.
inline constexpr std::string_view kTempInfix = ".tmp.";
bool is_temp_file(std::string_view name);

// Header of every file the store writes: magic, format version, payload size and the payload's
// SHA-256, so that a truncated or damaged file is recognised (docs/FORMATS.md).
std::string seal(std::string_view magic8, uint32_t version, std::string_view payload);
// The payload of a sealed file; throws FormatError naming what is wrong.
std::string_view unseal(std::string_view file, std::string_view magic8, uint32_t version);

}  // namespace triton_jit::detail
