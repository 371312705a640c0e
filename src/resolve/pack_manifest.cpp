// Pack manifests (triton_jit/pack.h): one kernel to pack, or one tuning choice, per line. Apart
// from the rest of the pack code so that a process (or a fuzz target) reads manifests without the
// bridge or a driver.
#include "resolve/pack_manifest.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triton_jit/errors.h"
#include "triton_jit/pack.h"

namespace triton_jit {
namespace {

// Whitespace-separated words; quotes keep spaces inside a word.
std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::string current;
  char quote = 0;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      current += c;
      if (c == '\\' && i + 1 < line.size()) {
        current += line[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '#') {
      break;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(current);
      current.clear();
      in_word = false;
    } else {
      if (c == '\'' || c == '"') quote = c;
      current += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(current);
  return words;
}

// KEY=VALUE with an identifier for KEY (a signature never has that form).
bool is_option(const std::string& word) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    if (!std::isalnum(static_cast<unsigned char>(word[i])) && word[i] != '_') return false;
  }
  return true;
}

bool parse_int(const std::string& text, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') return false;
  *out = static_cast<int>(v);
  return true;
}

CompileOptions::Value option_value(const std::string& text) {
  if (text == "True" || text == "False") return text == "True";
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"') && text.back() == text[0]) {
    return text.substr(1, text.size() - 2);
  }
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return static_cast<int64_t>(i);
  const double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return d;
  return text;  // a bare word: a string option
}

// The KEY=VALUE words of an `autotune` line after its first two words. A value that starts with
// '(', '[' or '{' runs to its closing bracket and one that starts with a quote to its closing
// quote, spaces included (a tuning key is pasted as Python prints it); '#' outside them ends the line.
std::vector<std::pair<std::string, std::string>> autotune_fields(const std::string& line,
                                                                 const std::function<void(const std::string&)>& fail) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  const auto skip_space = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  for (int word = 0; word < 2; ++word) {  // FILE:FUNCTION and `autotune`
    skip_space();
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  }
  for (skip_space(); i < line.size() && line[i] != '#'; skip_space()) {
    const size_t eq = line.find('=', i);
    const size_t space = std::min(line.size(), [&] {
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      return j;
    }());
    if (eq == std::string::npos || eq >= space || eq == i) fail("'" + line.substr(i, space - i) + "' is not KEY=VALUE");
    const std::string key = line.substr(i, eq - i);
    i = eq + 1;
    const size_t start = i;
    std::string closers;  // brackets still open, innermost last
    char quote = 0;
    const bool bracketed = i < line.size() && (line[i] == '(' || line[i] == '[' || line[i] == '{');
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
          if (!bracketed && closers.empty()) {
            ++i;
            break;
          }
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        closers += c == '(' ? ')' : c == '[' ? ']' : '}';
      } else if (!closers.empty() && c == closers.back()) {
        closers.pop_back();
        if (closers.empty()) {
          ++i;
          break;
        }
      } else if (closers.empty() && std::isspace(static_cast<unsigned char>(c))) {
        break;
      }
    }
    if (quote != 0 || !closers.empty()) fail("the value of " + key + "= is not closed");
    out.emplace_back(key, line.substr(start, i - start));
  }
  return out;
}

// A line that gives a key twice is refused: which value would win is a guess the manifest's
// author may not share (`num_warps=4 ... num_warps=8`).
void check_once(std::set<std::string>& seen, const std::string& key, const std::string& value,
                const std::function<void(const std::string&)>& fail_one_line) {
  if (!seen.insert(key).second) {
    fail_one_line(key + "= is given twice (the second time as " + key + "=" + value +
                  "): give each option once on a line");
  }
}

void read_autotune_line(const std::string& line, PackManifestEntry& e,
                        const std::function<void(const std::string&)>& fail,
                        const std::function<void(const std::string&)>& fail_one_line) {
  e.autotune = true;
  std::set<std::string> seen;
  for (const auto& [key, value] : autotune_fields(line, fail)) {
    check_once(seen, key, value, fail_one_line);
    if (value.empty()) fail(key + "= has no value");
    if (key == "key") {
      if (value.front() != '(' || value.back() != ')') fail("key= must be Triton's tuning key, a tuple: " + value);
      e.tuning_key = value;
    } else if (key == "config") {
      e.tuning_config = value;
    } else if (key == "args") {
      e.tuning_args = value.front() == '\'' && value.back() == '\'' && value.size() >= 2
                          ? value.substr(1, value.size() - 2)
                          : value;
    } else if (key == "grid") {
      e.tuning_grid = value;
    } else if (key == "layer") {
      if (!parse_int(value, &e.tuning_layer) || e.tuning_layer < 0) fail("layer must be an integer >= 0");
    } else {
      fail("an autotune line takes key=, config=, args=, grid= and layer=, not " + key + "=");
    }
  }
  if (e.tuning_key.empty() && e.tuning_args.empty()) {
    fail("an autotune line needs key= (Triton's tuning key, as printed) or args= (the call, to tune it)");
  }
  if (!e.tuning_key.empty() && e.tuning_config.empty()) fail("key= needs config= (the chosen config)");
}

}  // namespace

namespace detail {

std::vector<PackManifestEntry> parse_pack_manifest(std::string_view text, const std::string& manifest_path) {
  std::vector<PackManifestEntry> entries;
  std::string root;
  int root_line = 0;
  size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line(text.substr(start, end - start));
    start = end + 1;
    ++number;
    // Errors that cannot show the line, or need not: one line, naming the file and line.
    auto fail_one_line = [&](const std::string& why) {
      throw PackError(manifest_path + ":" + std::to_string(number) + ": " + why, manifest_path);
    };
    // A NUL would cut a file name or an option where it is passed on as a C string.
    if (const size_t nul = line.find('\0'); nul != std::string::npos) {
      fail_one_line("the line holds a NUL byte (at column " + std::to_string(nul + 1) +
                    "): a manifest is text; is this file a manifest?");
    }
    std::vector<std::string> words = split_words(line);
    if (words.empty()) continue;
    if (words.size() == 1 && words[0].rfind("root=", 0) == 0) {
      std::string value = words[0].substr(5);
      if (value.size() >= 2 && (value[0] == '\'' || value[0] == '"') && value.back() == value[0]) {
        value = value.substr(1, value.size() - 2);
      }
      if (value.empty()) fail_one_line("root= has no folder: give the folder the pack's file paths are relative to");
      if (root_line != 0) {
        fail_one_line("root= is given twice (first on line " + std::to_string(root_line) + "): a pack has one root");
      }
      root = value;
      root_line = number;
      continue;
    }
    auto fail = [&](const std::string& why) {
      throw PackError(manifest_path + ":" + std::to_string(number) + ": " + why + "\n  " + line +
                          "\nexpected: FILE.py:FUNCTION (or module:MODULE:FUNCTION) SIGNATURE [num_warps=N] "
                          "[num_stages=N] [num_ctas=N] "
                          "[OPTION=VALUE]... [target=cuda:90[,cuda:80]]",
                      manifest_path);
    };
    PackManifestEntry e;
    e.line = number;
    const size_t colon = words[0].rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == words[0].size()) {
      fail("'" + words[0] + "' is not FILE.py:FUNCTION or module:MODULE:FUNCTION");
    }
    e.file = words[0].substr(0, colon);
    e.function = words[0].substr(colon + 1);
    if (words.size() >= 2 && words[1] == "autotune") {
      read_autotune_line(
          line, e,
          [&](const std::string& why) {
            throw PackError(manifest_path + ":" + std::to_string(number) + ": " + why + "\n  " + line +
                                "\nexpected: FILE.py:FUNCTION autotune key=KEY config=CHOICE [layer=L], with KEY "
                                "Triton's tuning key as printed ((1024, 'torch.float16')) and CHOICE a config's index "
                                "or its values ({\"BLOCK\": 64, \"num_warps\": 4}); or args=JSON [grid=X,Y,Z] to "
                                "tune it at pack time on a GPU",
                            manifest_path);
          },
          fail_one_line);
      entries.push_back(std::move(e));
      continue;
    }
    if (words.size() < 2 || is_option(words[1])) fail("the signature is missing");
    e.signature = words[1];
    std::set<std::string> seen;
    for (size_t i = 2; i < words.size(); ++i) {
      const size_t eq = words[i].find('=');
      if (eq == std::string::npos || eq == 0) fail("'" + words[i] + "' is not KEY=VALUE");
      const std::string key = words[i].substr(0, eq);
      const std::string value = words[i].substr(eq + 1);
      check_once(seen, key, value, fail_one_line);
      if (key == "num_warps" || key == "num_stages" || key == "num_ctas") {
        int v = 0;
        if (!parse_int(value, &v)) fail(key + " must be an integer, not '" + value + "'");
        // A negative one would read as kTargetDefaultNumStages: leaving num_stages out says that.
        if (key == "num_stages" && v < 0) fail("num_stages must be from 0 to 255, not " + value);
        (key == "num_warps" ? e.num_warps : key == "num_stages" ? e.num_stages : e.num_ctas) = v;
      } else if (key == "target") {
        size_t s = 0;
        while (s <= value.size()) {
          size_t comma = value.find(',', s);
          if (comma == std::string::npos) comma = value.size();
          try {
            e.targets.push_back(Target::parse(value.substr(s, comma - s)));
          } catch (const Error& t) {
            fail(t.what());
          }
          s = comma + 1;
        }
      } else {
        e.options.set(key, option_value(value));
      }
    }
    entries.push_back(std::move(e));
  }
  for (PackManifestEntry& e : entries) e.root = root;
  return entries;
}

}  // namespace detail

std::vector<PackManifestEntry> read_pack_manifest(const std::string& manifest_path) {
  const auto fail = [&](const std::string& why) {
    return PackError("cannot read the pack manifest " + manifest_path + ": " + why, manifest_path);
  };
  // Read in bounded steps, not by the file's size: a manifest may come through a pipe
  // (`triton-jit pack <(make_manifest)`), and /dev/zero named by mistake must end.
  const int fd = ::open(manifest_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() + static_cast<size_t>(n) > detail::kMaxManifestBytes) {
      const int e = errno;
      ::close(fd);
      if (n < 0) throw fail(std::strerror(e));
      throw fail("it is larger than " + std::to_string(detail::kMaxManifestBytes >> 20) +
                 " MiB: is it a manifest? Split a manifest this large into several");
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return detail::parse_pack_manifest(text, manifest_path);
}

}  // namespace triton_jit
