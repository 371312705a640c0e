#include "key/key_text.h"

#include <variant>

#include "key/repr.h"

namespace triton_jit::detail {

KernelKey make_kernel_key(const Specialization& spec, const CompileOptions* options, const Target& target) {
  KernelKey k;
  k.signature = spec.signature();
  k.num_warps = spec.num_warps;
  k.num_stages = spec.num_stages;
  k.num_ctas = spec.num_ctas;
  k.options = options_text(options);
  k.target = target;
  return k;
}

std::string KernelKey::text() const {
  return signature + "|num_warps=" + std::to_string(num_warps) + "|num_stages=" + std::to_string(num_stages) +
         "|num_ctas=" + std::to_string(num_ctas) + "|options=" + options + "|target=" + target.backend + ":" +
         std::to_string(target.arch) + ":" + std::to_string(target.warp_size);
}

std::string KernelKey::manifest_line(const std::string& file, const std::string& function) const {
  std::string line = file + ":" + function + " " + signature + " num_warps=" + std::to_string(num_warps) +
                     " num_stages=" + std::to_string(num_stages) + " num_ctas=" + std::to_string(num_ctas);
  size_t start = 0;
  while (start < options.size()) {
    size_t end = options.find(';', start);
    if (end == std::string::npos) end = options.size();
    line += " " + options.substr(start, end - start);
    start = end + 1;
  }
  return line + " target=" + target.str() + (target.warp_size != 32 ? ":" + std::to_string(target.warp_size) : "");
}

std::string options_text(const CompileOptions* options) {
  if (options == nullptr) return {};
  std::string out;
  for (const auto& [name, value] : options->items()) {
    if (!out.empty()) out += ';';
    out += name + "=";
    if (auto* i = std::get_if<int64_t>(&value)) {
      out += std::to_string(*i);
    } else if (auto* b = std::get_if<bool>(&value)) {
      out += *b ? "True" : "False";
    } else if (auto* d = std::get_if<double>(&value)) {
      out += python_float_repr(*d);
    } else {
      out += python_str_repr(std::get<std::string>(value));
    }
  }
  return out;
}

}  // namespace triton_jit::detail
