#include "store/pack_file.h"

#include "store/files.h"

namespace triton_jit::detail {

std::string encode_pack(const PackContents& pack) {
  BinaryWriter w;
  w.u32(static_cast<uint32_t>(pack.functions.size()));
  for (const PackFunction& f : pack.functions) {
    w.str(f.name);
    w.str(f.file);
    w.str(f.source_sha256);
    write_signature(w, f.signature);
    w.u32(static_cast<uint32_t>(f.tables.size()));
    for (const auto& [table, entries] : f.tables) {
      w.str(table);
      w.u32(static_cast<uint32_t>(entries.size()));
      for (const auto& [key, value] : entries) {
        w.str(key);
        w.str(value);
      }
    }
  }
  w.u32(static_cast<uint32_t>(pack.kernels.size()));
  for (size_t i = 0; i < pack.kernels.size(); ++i) {
    w.u32(pack.kernel_function[i]);
    write_kernel_record(w, pack.kernels[i]);
  }
  return seal(kPackMagic, kPackFormatVersion, w.bytes());
}

PackContents decode_pack(std::string_view file) {
  BinaryReader r(unseal(file, kPackMagic, kPackFormatVersion));
  PackContents pack;
  const uint32_t functions = r.u32();
  for (uint32_t i = 0; i < functions; ++i) {
    PackFunction f;
    f.name = r.str();
    f.file = r.str();
    f.source_sha256 = r.str();
    f.signature = read_signature(r);
    // A table is at least its name's length and its entry count; an entry two lengths.
    const uint32_t tables = r.count("table", 1u << 16, 8);
    for (uint32_t t = 0; t < tables; ++t) {
      std::string table = r.str();
      const uint32_t n = r.count("table entry", 1u << 20, 8);
      std::vector<std::pair<std::string, std::string>> entries(n);
      for (auto& [key, value] : entries) {
        key = r.str();
        value = r.str();
      }
      f.tables.emplace_back(std::move(table), std::move(entries));
    }
    pack.functions.push_back(std::move(f));
  }
  const uint32_t kernels = r.u32();
  for (uint32_t i = 0; i < kernels; ++i) {
    const uint32_t fn = r.u32();
    if (fn >= pack.functions.size()) throw FormatError{"kernel " + std::to_string(i) + " names no function"};
    pack.kernel_function.push_back(fn);
    pack.kernels.push_back(read_kernel_record(r));
  }
  if (!r.at_end()) throw FormatError{"trailing bytes after the last kernel"};
  return pack;
}

}  // namespace triton_jit::detail
