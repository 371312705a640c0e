#include "amdgpu_metadata.h"

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

namespace amdgpu {
namespace {

constexpr uint32_t kNtAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA (llvm/BinaryFormat/ELF.h)
constexpr uint32_t kShtNote = 7;

[[noreturn]] void bad(const std::string& why) { throw std::runtime_error("malformed AMDGPU code object: " + why); }

template <typename T>
T read_at(const unsigned char* base, size_t size, uint64_t offset) {
  if (offset > size || size - offset < sizeof(T)) bad("read past the end");
  T v;
  std::memcpy(&v, base + offset, sizeof v);  // ELF64 little-endian, as AMDGPU code objects are
  return v;
}

// A msgpack value, as much of the format as the metadata uses.
struct Value {
  enum Kind { Nil, Bool, Int, Str, Array, Map, Other } kind = Nil;
  int64_t i = 0;
  std::string s;
  std::vector<Value> items;                   // Array
  std::vector<std::pair<Value, Value>> map;   // Map
  const Value* get(const char* key) const {
    for (const auto& [k, v] : map) {
      if (k.kind == Str && k.s == key) return &v;
    }
    return nullptr;
  }
};

class Reader {
 public:
  Reader(const unsigned char* p, size_t n) : p_(p), n_(n) {}
  Value value(int depth = 0) {
    if (depth > 16) bad("msgpack nested too deeply");
    const uint8_t t = byte();
    Value v;
    if (t <= 0x7f) return integer(t);
    if (t >= 0xe0) return integer(static_cast<int8_t>(t));
    if ((t & 0xf0) == 0x80) return map(t & 0x0f, depth);
    if ((t & 0xf0) == 0x90) return array(t & 0x0f, depth);
    if ((t & 0xe0) == 0xa0) return str(t & 0x1f);
    switch (t) {
      case 0xc0: return v;
      case 0xc2: case 0xc3: v.kind = Value::Bool; v.i = t == 0xc3; return v;
      case 0xc4: skip(uint(1)); v.kind = Value::Other; return v;
      case 0xc5: skip(uint(2)); v.kind = Value::Other; return v;
      case 0xc6: skip(uint(4)); v.kind = Value::Other; return v;
      case 0xca: skip(4); v.kind = Value::Other; return v;
      case 0xcb: skip(8); v.kind = Value::Other; return v;
      case 0xcc: return integer(static_cast<int64_t>(uint(1)));
      case 0xcd: return integer(static_cast<int64_t>(uint(2)));
      case 0xce: return integer(static_cast<int64_t>(uint(4)));
      case 0xcf: return integer(static_cast<int64_t>(uint(8)));
      case 0xd0: return integer(static_cast<int8_t>(uint(1)));
      case 0xd1: return integer(static_cast<int16_t>(uint(2)));
      case 0xd2: return integer(static_cast<int32_t>(uint(4)));
      case 0xd3: return integer(static_cast<int64_t>(uint(8)));
      case 0xd9: return str(uint(1));
      case 0xda: return str(uint(2));
      case 0xdb: return str(uint(4));
      case 0xdc: return array(uint(2), depth);
      case 0xdd: return array(uint(4), depth);
      case 0xde: return map(uint(2), depth);
      case 0xdf: return map(uint(4), depth);
      default: bad("msgpack type byte " + std::to_string(t) + " is not one the metadata uses");
    }
  }

 private:
  uint8_t byte() {
    if (at_ >= n_) bad("msgpack runs past the note");
    return p_[at_++];
  }
  uint64_t uint(int bytes) {  // big-endian, as msgpack writes
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | byte();
    return v;
  }
  void skip(uint64_t bytes) {
    if (bytes > n_ - at_) bad("msgpack runs past the note");
    at_ += bytes;
  }
  static Value integer(int64_t x) {
    Value v;
    v.kind = Value::Int;
    v.i = x;
    return v;
  }
  Value str(uint64_t len) {
    const size_t start = at_;
    skip(len);
    Value v;
    v.kind = Value::Str;
    v.s.assign(reinterpret_cast<const char*>(p_ + start), len);
    return v;
  }
  Value array(uint64_t count, int depth) {
    if (count > n_ - at_) bad("msgpack array longer than the note");
    Value v;
    v.kind = Value::Array;
    for (uint64_t i = 0; i < count; ++i) v.items.push_back(value(depth + 1));
    return v;
  }
  Value map(uint64_t count, int depth) {
    if (count > n_ - at_) bad("msgpack map longer than the note");
    Value v;
    v.kind = Value::Map;
    for (uint64_t i = 0; i < count; ++i) {
      Value k = value(depth + 1);
      v.map.emplace_back(std::move(k), value(depth + 1));
    }
    return v;
  }
  const unsigned char* p_;
  size_t n_;
  size_t at_ = 0;
};

uint64_t as_uint(const Value* v, const char* what) {
  if (v == nullptr || v->kind != Value::Int || v->i < 0) bad(std::string("no integer ") + what);
  return static_cast<uint64_t>(v->i);
}

std::vector<Kernel> kernels_of(const Value& root) {
  const Value* list = root.get("amdhsa.kernels");
  if (list == nullptr || list->kind != Value::Array) bad("the metadata has no amdhsa.kernels");
  std::vector<Kernel> out;
  for (const Value& k : list->items) {
    Kernel kernel;
    const Value* name = k.get(".name");
    if (name == nullptr || name->kind != Value::Str) bad("a kernel without .name");
    kernel.name = name->s;
    kernel.kernarg_segment_size = as_uint(k.get(".kernarg_segment_size"), ".kernarg_segment_size");
    if (const Value* args = k.get(".args"); args != nullptr && args->kind == Value::Array) {
      for (const Value& a : args->items) {
        KernelArg arg;
        arg.offset = as_uint(a.get(".offset"), ".offset");
        arg.size = as_uint(a.get(".size"), ".size");
        const Value* kind = a.get(".value_kind");
        if (kind == nullptr || kind->kind != Value::Str) bad("an argument without .value_kind");
        arg.value_kind = kind->s;
        if (arg.offset + arg.size > kernel.kernarg_segment_size) bad("an argument past the kernarg segment");
        kernel.args.push_back(arg);
      }
    }
    out.push_back(std::move(kernel));
  }
  return out;
}

}  // namespace

std::vector<KernelArg> Kernel::explicit_args() const {
  std::vector<KernelArg> out;
  for (const auto& a : args) {
    if (!a.hidden()) out.push_back(a);
  }
  return out;
}

std::vector<Kernel> read_kernels(const void* elf, size_t size) {
  const auto* b = static_cast<const unsigned char*>(elf);
  if (std::memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2 || b[5] != 1) bad("not a little-endian ELF64 file");
  const uint64_t shoff = read_at<uint64_t>(b, 64, 0x28);
  const uint16_t shentsize = read_at<uint16_t>(b, 64, 0x3a);
  const uint16_t shnum = read_at<uint16_t>(b, 64, 0x3c);
  if (size == 0) size = static_cast<size_t>(shoff + uint64_t{shentsize} * shnum);  // section headers come last
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t sh = shoff + uint64_t{i} * shentsize;
    if (read_at<uint32_t>(b, size, sh + 4) != kShtNote) continue;
    const uint64_t off = read_at<uint64_t>(b, size, sh + 0x18);
    const uint64_t len = read_at<uint64_t>(b, size, sh + 0x20);
    if (off > size || len > size - off) bad("a note section past the end");
    uint64_t at = off;
    while (at + 12 <= off + len) {
      const uint32_t namesz = read_at<uint32_t>(b, size, at);
      const uint32_t descsz = read_at<uint32_t>(b, size, at + 4);
      const uint32_t type = read_at<uint32_t>(b, size, at + 8);
      const uint64_t name_at = at + 12;
      const uint64_t desc_at = name_at + ((uint64_t{namesz} + 3) & ~uint64_t{3});
      const uint64_t next = desc_at + ((uint64_t{descsz} + 3) & ~uint64_t{3});
      if (next > off + len) bad("a note past its section");
      if (type == kNtAmdgpuMetadata && namesz == 7 && std::memcmp(b + name_at, "AMDGPU", 7) == 0) {
        Reader reader(b + desc_at, descsz);
        return kernels_of(reader.value());
      }
      at = next;
    }
  }
  bad("no NT_AMDGPU_METADATA note");
}

}  // namespace amdgpu
