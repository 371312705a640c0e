#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace triton_jit::detail {

// Little-endian fields of the store's files (docs/FORMATS.md). Strings are a u32 length and
// bytes. The reader checks every bound: a truncated or damaged file throws FormatError, never
// reads past its end.
class BinaryWriter {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put(bits);
  }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  void raw(std::string_view s) { out_.append(s.data(), s.size()); }
  const std::string& bytes() const noexcept { return out_; }
  std::string take() { return std::move(out_); }

 private:
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>(v >> (8 * i));
    out_.append(b, sizeof(T));
  }
  std::string out_;
};

struct FormatError {
  std::string what;
};

class BinaryReader {
 public:
  explicit BinaryReader(std::string_view data) : data_(data) {}
  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  uint32_t u32() { return static_cast<uint32_t>(get(4)); }
  uint64_t u64() { return get(8); }
  int64_t i64() { return static_cast<int64_t>(get(8)); }
  int i32() { return static_cast<int>(static_cast<int32_t>(u32())); }
  double f64() {
    const uint64_t bits = get(8);
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    return std::string(take(n));
  }
  std::string_view raw(size_t n) { return take(n); }
  // The number of items of a list that follows, each at least `min_item_bytes` long: a count above
  // `max` or beyond what the rest of the data could hold is damage, so a list is never sized
  // larger than its file justifies. Throws FormatError naming `what`.
  uint32_t count(const char* what, uint32_t max, size_t min_item_bytes = 1) {
    const uint32_t n = u32();
    if (n > max || n > remaining() / min_item_bytes) {
      throw FormatError{std::string("bad ") + what + " count " + std::to_string(n) + " at offset " +
                        std::to_string(pos_ - 4) + " (" + std::to_string(remaining()) + " bytes left)"};
    }
    return n;
  }
  bool at_end() const noexcept { return pos_ == data_.size(); }
  size_t remaining() const noexcept { return data_.size() - pos_; }

 private:
  std::string_view take(size_t n) {
    if (n > data_.size() - pos_) {
      throw FormatError{"truncated: needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) + " of " +
                        std::to_string(data_.size())};
    }
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  uint64_t get(size_t n) {
    std::string_view b = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
    return v;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace triton_jit::detail
