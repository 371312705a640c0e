#pragma once
// A minimal reader of CUDA cubins (ELF), independent of the library: the tests use what ptxas
// wrote into the binary (architecture, kernel parameter layout) as the reference for what the
// runtime reports and packs.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubin {

constexpr uint16_t kEmCuda = 190;

struct Section {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// One kernel parameter as the driver sees it (EIATTR_KPARAM_INFO).
struct KernelParam {
  int ordinal = 0;
  int offset = 0;  // in the parameter constant bank
  int size = 0;    // bytes
};

template <typename T>
inline T read(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline bool is_elf64(const unsigned char* image, size_t size) {
  return size >= 64 &&
         std::memcmp(image,
                     "\x7f"
                     "ELF",
                     4) == 0 &&
         image[4] == 2;
}

inline uint16_t machine(const unsigned char* image) { return read<uint16_t>(image + 0x12); }
inline uint32_t flags(const unsigned char* image) { return read<uint32_t>(image + 0x30); }

// Size of the image as its headers describe it (section table end or furthest section end).
inline size_t image_size(const unsigned char* image) {
  const uint64_t shoff = read<uint64_t>(image + 0x28);
  const uint16_t shentsize = read<uint16_t>(image + 0x3a);
  const uint16_t shnum = read<uint16_t>(image + 0x3c);
  size_t end = static_cast<size_t>(shoff + uint64_t{shentsize} * shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char* sh = image + shoff + uint64_t{i} * shentsize;
    const uint32_t type = read<uint32_t>(sh + 4);
    if (type == 8) continue;  // NOBITS
    const uint64_t off = read<uint64_t>(sh + 0x18), sz = read<uint64_t>(sh + 0x20);
    if (off + sz > end) end = static_cast<size_t>(off + sz);
  }
  return end;
}

inline std::vector<Section> sections(const unsigned char* image) {
  const uint64_t shoff = read<uint64_t>(image + 0x28);
  const uint16_t shentsize = read<uint16_t>(image + 0x3a);
  const uint16_t shnum = read<uint16_t>(image + 0x3c);
  const uint16_t shstrndx = read<uint16_t>(image + 0x3e);
  const uint64_t strtab = read<uint64_t>(image + shoff + uint64_t{shstrndx} * shentsize + 0x18);
  std::vector<Section> out;
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char* sh = image + shoff + uint64_t{i} * shentsize;
    Section s;
    s.name = reinterpret_cast<const char*>(image + strtab + read<uint32_t>(sh));
    s.offset = read<uint64_t>(sh + 0x18);
    s.size = read<uint64_t>(sh + 0x20);
    out.push_back(std::move(s));
  }
  return out;
}

inline std::optional<Section> find_section(const unsigned char* image, std::string_view name) {
  for (Section& s : sections(image)) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

// Parameters of `kernel`, ordered by ordinal, from its .nv.info.<kernel> section; nullopt when
// the cubin has no such kernel.
inline std::optional<std::vector<KernelParam>> kernel_params(const unsigned char* image, std::string_view kernel) {
  auto info = find_section(image, ".nv.info." + std::string(kernel));
  if (!info) return std::nullopt;
  std::vector<KernelParam> params;
  const unsigned char* p = image + info->offset;
  const unsigned char* end = p + info->size;
  while (p + 4 <= end) {
    const uint8_t format = p[0], attribute = p[1];
    if (format == 0x04) {  // EIFMT_SVAL: u16 size, then the payload
      const uint16_t size = read<uint16_t>(p + 2);
      if (attribute == 0x17 && size >= 12) {  // EIATTR_KPARAM_INFO
        KernelParam k;
        k.ordinal = read<uint16_t>(p + 8);
        k.offset = read<uint16_t>(p + 10);
        k.size = static_cast<int>((read<uint32_t>(p + 12) >> 18) & 0x3fff);
        params.push_back(k);
      }
      p += 4 + size;
    } else {
      p += 4;  // EIFMT_NVAL/BVAL/HVAL: the value sits in the 2 bytes after the header
    }
  }
  std::vector<KernelParam> ordered(params.size());
  for (const KernelParam& k : params) {
    if (k.ordinal < 0 || static_cast<size_t>(k.ordinal) >= ordered.size()) return std::nullopt;
    ordered[static_cast<size_t>(k.ordinal)] = k;
  }
  return ordered;
}

inline std::optional<std::vector<KernelParam>> kernel_params(const std::string& cubin, std::string_view kernel) {
  return kernel_params(reinterpret_cast<const unsigned char*>(cubin.data()), kernel);
}

// The SM number the cubin was built for (90 for sm_90 and sm_90a). ELF ABI version 7 and older keep
// it in the low byte of e_flags; version 8 (ptxas for sm_100, and for sm_90 too when Triton 3.9 asks
// for it) keeps it in bits 8..15, the low byte then holding other flags.
inline int sm_version(const unsigned char* image) {
  const uint32_t f = flags(image);
  const unsigned abi_version = image[8];  // e_ident[EI_ABIVERSION]
  if (abi_version >= 8 || (f & 0xff) == 0) return static_cast<int>((f >> 8) & 0xff);
  return static_cast<int>(f & 0xff);
}

}  // namespace cubin
