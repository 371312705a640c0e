#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "triton_jit/jit_function.h"
#include "triton_jit/version.h"

namespace triton_jit_cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using triton_jit::CompileOptions;

// --option VALUE: true/false, then an integer, then a float, else the text itself.
CompileOptions::Value option_value(const std::string& text) {
  if (text == "true" || text == "True") return true;
  if (text == "false" || text == "False") return false;
  int64_t i = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, i);
  if (!text.empty() && ec == std::errc() && ptr == end) return i;
  if (!text.empty() && text.find_first_of(".eE") != std::string::npos) {
    char* dend = nullptr;
    const double d = std::strtod(text.c_str(), &dend);
    if (dend != text.c_str() && *dend == '\0') return d;
  }
  return text;
}

ordered_json option_json(const CompileOptions::Value& v) {
  return std::visit([](const auto& x) { return ordered_json(x); }, v);
}

// Writes through a temporary and a rename, so a reader never sees half a file.
void write_file(const fs::path& path, const std::string& bytes) {
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (out) out.close();
    if (!out) {
      const int err = errno;
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(err));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  }
}

}  // namespace

int run_compile(const Options& o) {
  CompileOptions options;
  for (const auto& [key, text] : o.compile_options) options.set(key, option_value(text));

  const triton_jit::TritonJitFunction& fn = kernel_function(o);
  const triton_jit::KernelInfo info = fn.compile(
      triton_jit::CompileRequest{o.signature, o.num_warps, o.num_stages, o.num_ctas, options, o.target});

  if (info.name.empty() || info.name.find_first_of("/\\") != std::string::npos || info.name[0] == '.') {
    throw std::runtime_error("the compiled kernel has a name unfit for a file name: '" + info.name + "'");
  }

  ordered_json options_json = ordered_json::object();
  for (const auto& [key, value] : options.items()) options_json[key] = option_json(value);
  // Every field of the kernel (triton_jit's one list of them), with what only this command knows.
  ordered_json j = ordered_json::parse(info.to_json());
  // Triton's name for the binary: a cubin for cuda targets, an hsaco for hip.
  const std::string cubin_name = info.name + (info.target.backend == "hip" ? ".hsaco" : ".cubin");
  j["function"] = fn.signature().function;
  j["file"] = fn.path();
  j["signature"] = o.signature;
  j["num_stages"] = triton_jit::target_num_stages(o.num_stages, info.target);  // what it compiled with
  j["triton_jit_version"] = TRITON_JIT_VERSION_STRING;
  j["cubin"] = cubin_name;
  j["options"] = options_json;

  const fs::path dir(o.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create directory " + dir.string() + ": " + ec.message());
  const fs::path cubin_path = dir / cubin_name;
  const fs::path json_path = dir / (info.name + ".json");
  write_file(cubin_path, info.cubin);
  write_file(json_path, j.dump(2) + "\n");
  std::cout << cubin_path.string() << '\n' << json_path.string() << '\n';
  return 0;
}

}  // namespace triton_jit_cli
