#include "triton_jit/kernel_info.h"

#include <cstdio>
#include <string_view>

#include "kernel/kernel_fields.h"

namespace triton_jit {
namespace detail {

KernelInfo CompiledKernel::public_info() const {
  KernelInfo out = info;
  KernelInfoAccess::set_launch(out, launch);
  return out;
}

namespace {

// A JSON writer for the field kinds of TRITON_JIT_KERNEL_FIELDS.
class JsonObject {
 public:
  void String(const char* key, std::string_view v) { raw(key, quoted(v)); }
  void Bytes(const char* key, const std::string& v) {
    raw((std::string(key) + "_size").c_str(), std::to_string(v.size()));
  }
  void Int(const char* key, int v) { raw(key, std::to_string(v)); }
  void Int64(const char* key, int64_t v) { raw(key, std::to_string(v)); }
  void Bool(const char* key, bool v) { raw(key, v ? "true" : "false"); }
  void Int3(const char* key, const int (&v)[3]) {
    raw(key, "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]");
  }
  void StringList(const char* key, const std::vector<std::string>& v) {
    std::string list = "[";
    for (const std::string& s : v) list += (list.size() > 1 ? ", " : "") + quoted(s);
    raw(key, list + "]");
  }
  void Target(const char* key, const triton_jit::Target& t) {
    // As Triton's GPUTarget: a number for cuda, the gfx name for hip.
    const std::string arch = t.backend == "hip" ? quoted(t.str().substr(4)) : std::to_string(t.arch);
    raw(key, "{\"backend\": " + quoted(t.backend) + ", \"arch\": " + arch +
                 ", \"warp_size\": " + std::to_string(t.warp_size) + "}");
  }
  void DescriptorMetaList(const char* key, const std::vector<DescriptorMeta>& v) {
    std::string list = "[";
    for (const DescriptorMeta& m : v) {
      std::string block = "[";
      for (int b : m.block_size) block += (block.size() > 1 ? ", " : "") + std::to_string(b);
      list += std::string(list.size() > 1 ? ", " : "") + "{\"swizzle\": " + std::to_string(m.swizzle) +
              ", \"elem_size\": " + std::to_string(m.elem_size) + ", \"elem_type\": " + std::to_string(m.elem_type) +
              ", \"block_size\": " + block + "], \"fp4_padded\": " + (m.fp4_padded ? "true" : "false") + "}";
    }
    raw(key, list + "]");
  }
  // Triton's metadata, already JSON, goes in as it is, under "metadata".
  void Json(const char*, const std::string& v) { raw("metadata", v.empty() ? "{}" : v); }

  std::string str() const { return "{" + body_ + "}"; }

 private:
  void raw(const char* key, const std::string& value) {
    body_ += (body_.empty() ? "" : ", ") + quoted(key) + ": " + value;
  }
  static std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
    return out + "\"";
  }
  std::string body_;
};

}  // namespace
}  // namespace detail

std::string KernelInfo::to_json() const {
  detail::CompiledKernel k;
  k.info = *this;
  const detail::LaunchMetadata* launch = detail::KernelInfoAccess::launch(*this);
  if (launch != nullptr) k.launch = *launch;
  detail::JsonObject json;
#define TRITON_JIT_JSON_FIELD(P, field, kind) \
  if (launch != nullptr || std::string_view(#P) == "Info") json.kind(#field, TRITON_JIT_KERNEL_PART(k, P).field);
  TRITON_JIT_KERNEL_FIELDS(TRITON_JIT_JSON_FIELD)
#undef TRITON_JIT_JSON_FIELD
  return json.str();
}

}  // namespace triton_jit
