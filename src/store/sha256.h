#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triton_jit::detail {

// SHA-256 (FIPS 180-4). The store names entries and checks files with it because the Python
// bridge can compute the same digest with hashlib, so both sides agree on a source's hash.
class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, size_t size);
  Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
  // 64 lowercase hex digits. Ends the computation.
  std::string hex();
  void digest(uint8_t out[32]);

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

inline std::string sha256_hex(std::string_view data) { return Sha256().update(data).hex(); }

}  // namespace triton_jit::detail
