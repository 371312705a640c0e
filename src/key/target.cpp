#include "triton_jit/target.h"

#include <stdexcept>

#include "triton_jit/errors.h"

namespace triton_jit {

std::string Target::str() const { return backend + ":" + std::to_string(arch); }

Target Target::parse(const std::string& text) {
  Target t;
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw Error("invalid target '" + text + "': expected BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90");
  }
  t.backend = text.substr(0, colon);
  std::string rest = text.substr(colon + 1);
  size_t colon2 = rest.find(':');
  try {
    size_t used = 0;
    t.arch = std::stoi(rest.substr(0, colon2), &used);
    if (used != rest.substr(0, colon2).size()) throw std::invalid_argument(rest);
    if (colon2 != std::string::npos) t.warp_size = std::stoi(rest.substr(colon2 + 1));
  } catch (const std::exception&) {
    throw Error("invalid target '" + text + "': expected BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90");
  }
  if (t.backend != "cuda") {
    throw Error("invalid target '" + text + "': only the cuda backend is supported");
  }
  if (t.arch <= 0 || t.arch > 0xffff || t.warp_size <= 0 || t.warp_size > 0xff) {
    throw Error("invalid target '" + text + "': architecture or warp size out of range");
  }
  return t;
}

}  // namespace triton_jit
