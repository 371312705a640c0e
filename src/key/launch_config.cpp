#include "triton_jit/launch_config.h"

#include <algorithm>
#include <cstring>

#include "key/spec_key.h"

namespace triton_jit {

CompileOptions::CompileOptions(std::initializer_list<std::pair<std::string, Value>> options) {
  for (const auto& [name, value] : options) set(name, value);
}

CompileOptions& CompileOptions::set(std::string name, Value value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, const std::string& n) { return item.first < n; });
  if (it != items_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_.emplace(it, std::move(name), std::move(value));
  }
  rehash();
  return *this;
}

void CompileOptions::rehash() {
  uint64_t h = 0x9ae16a3b2f90404full;
  for (const auto& [name, value] : items_) {
    uint64_t words[3] = {detail::hash_string(name), value.index(), 0};
    if (auto* i = std::get_if<int64_t>(&value)) words[2] = static_cast<uint64_t>(*i);
    if (auto* b = std::get_if<bool>(&value)) words[2] = *b;
    if (auto* d = std::get_if<double>(&value)) std::memcpy(&words[2], d, sizeof *d);
    if (auto* s = std::get_if<std::string>(&value)) words[2] = detail::hash_string(*s);
    h = detail::hash_words(words, 3) ^ (h * 0x9e3779b97f4a7c15ull);
  }
  hash_ = items_.empty() ? 0 : (h | 1);
}

}  // namespace triton_jit
