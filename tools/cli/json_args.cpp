#include "json_args.h"

#include <cerrno>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "triton_jit/dtype.h"
#include "usage_error.h"

namespace triton_jit_cli {
namespace {

using nlohmann::json;
using triton_jit::ArgValue;

constexpr const char* kPointerForm = R"({"ptr": "fp16", "addr": 4096})";
constexpr const char* kMemoryForm = R"({"ptr": "fp16", "bytes": 1048576})";
constexpr uint64_t kMaxBytes = uint64_t{1} << 46;  // a pointer's extent holds 46 bits (ArgValue)
constexpr const char* kDTypeForms = R"({"dtype": "fp16"} or {"torch_dtype": "float16"})";

// nlohmann reads an integer beyond 64 bits as a float; its lexeme still tells them apart.
// Python would pass such a value as an int, which Triton rejects, so the CLI rejects it too.
class IntegerRangeCheck : public nlohmann::json_sax<json> {
 public:
  std::string out_of_range;  // lexeme of the first integer that does not fit 64 bits

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t& lexeme) override {
    if (out_of_range.empty() && lexeme.find_first_of(".eE") == string_t::npos) out_of_range = lexeme;
    return true;
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const json::exception&) override { return false; }
};

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ...".
std::string without_exception_id(const char* what) {
  std::string s = what;
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

std::string where(size_t index) { return "--args[" + std::to_string(index) + "]"; }

// A string from --args as JSON writes it, quoted and escaped: an error stays one line whatever the
// string holds ("\n" in a dtype name printed a line break).
std::string as_json_string(std::string_view text) {
  return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

uint64_t read_address(const json& addr, size_t index) {
  if (addr.is_number_unsigned()) return addr.get<uint64_t>();
  if (addr.is_number_integer()) {
    throw UsageError(where(index) + ": \"addr\" must not be negative, got " + addr.dump());
  }
  if (addr.is_string()) {
    const std::string& text = addr.get_ref<const std::string&>();
    if (!text.empty() && text[0] != '-' && text[0] != '+' && text[0] != ' ') {
      errno = 0;
      char* end = nullptr;
      const unsigned long long value = std::strtoull(text.c_str(), &end, 0);
      if (errno == 0 && end != text.c_str() && *end == '\0') return value;
    }
    throw UsageError(where(index) + ": \"addr\" must be an address such as 4096 or \"0x1000\", got " +
                     as_json_string(text));
  }
  throw UsageError(where(index) + ": \"addr\" must be an address such as 4096 or \"0x1000\", got " + addr.dump());
}

uint64_t read_bytes(const json& bytes, size_t index) {
  if (bytes.is_number_unsigned()) {
    const uint64_t value = bytes.get<uint64_t>();
    if (value > 0 && value < kMaxBytes) return value;
  }
  throw UsageError(where(index) + ": \"bytes\" must be a size in bytes from 1 to 2**46-1, got " + bytes.dump());
}

// A pointer: {"ptr": DTYPE, "addr": ADDRESS}, or {"ptr": DTYPE, "bytes": N} (device memory to
// allocate: *bytes is set, the value returned is a placeholder).
ArgValue read_pointer(const json& item, size_t index, JsonArgs::Memory memory, uint64_t* bytes,
                      triton_jit::DType* dtype_out) {
  for (const auto& [key, value] : item.items()) {
    if (key != "ptr" && key != "addr" && key != "bytes" && key != "storage_bytes") {
      throw UsageError(where(index) + ": unknown key " + as_json_string(key) + " in a pointer; expected " +
                       kPointerForm);
    }
  }
  const auto ptr = item.find("ptr");
  const auto addr = item.find("addr");
  const auto size = item.find("bytes");
  const auto storage = item.find("storage_bytes");
  if (addr != item.end() && size != item.end()) {
    throw UsageError(where(index) + ": a pointer has \"addr\" (an address) or \"bytes\" (memory to allocate), not "
                                    "both");
  }
  if (ptr == item.end() || (addr == item.end() && size == item.end())) {
    throw UsageError(where(index) + ": a pointer needs \"ptr\" (element type) and \"addr\", as in " + kPointerForm);
  }
  if (size != item.end() && storage != item.end()) {
    throw UsageError(where(index) + ": \"storage_bytes\" describes the buffer at \"addr\"; memory allocated with "
                                    "\"bytes\" has that size already");
  }
  if (size != item.end() && memory == JsonArgs::Memory::Refuse) {
    throw UsageError(where(index) + ": " + kMemoryForm +
                     " allocates device memory, which only `triton-jit tune` does; give an address here, as in " +
                     kPointerForm);
  }
  if (!ptr->is_string()) {
    throw UsageError(where(index) + ": \"ptr\" must name an element type such as \"fp16\", got " + ptr->dump());
  }
  std::string_view name = ptr->get_ref<const std::string&>();
  if (!name.empty() && name[0] == '*') name.remove_prefix(1);
  triton_jit::DType dtype;
  if (!triton_jit::parse_dtype(name, &dtype)) {
    throw UsageError(where(index) + ": unknown pointer element type " + as_json_string(name) +
                     " (Triton's names: fp16, bf16, fp32, fp64, i8..i64, u1, u8..u64, fp8e4nv, fp8e5, ...)");
  }
  if (size != item.end()) {
    *bytes = read_bytes(*size, index);
    *dtype_out = dtype;
    return ArgValue::pointer_address(0, dtype);
  }
  if (storage != item.end()) {
    // The size of the buffer the pointer lies in, as Triton's HIP backend reads it from the tensor's
    // storage: it decides HIP's 'S' flag (at most 2**31-1 bytes).
    if (!storage->is_number_unsigned()) {
      throw UsageError(where(index) +
                       ": \"storage_bytes\" must be the size in bytes of the buffer the pointer lies "
                       "in (0 or more), got " +
                       storage->dump());
    }
    const auto address = reinterpret_cast<const void*>(static_cast<uintptr_t>(read_address(*addr, index)));
    return ArgValue::pointer_in_storage(address, dtype, 0, storage->get<uint64_t>());
  }
  return ArgValue::pointer_address(read_address(*addr, index), dtype);
}

// {"dtype": "fp16"} -> tl.float16, {"torch_dtype": "float16"} -> torch.float16 (constexprs only).
ArgValue read_dtype(const json& item, size_t index) {
  if (item.size() != 1) {
    throw UsageError(where(index) + ": a dtype is an object with one key, " + kDTypeForms);
  }
  const std::string key = item.begin().key();
  const json& value = item.begin().value();
  const bool torch = key == "torch_dtype";
  if (!value.is_string()) {
    throw UsageError(where(index) + ": \"" + key + "\" must name a dtype such as \"" + (torch ? "float16" : "fp16") +
                     "\", got " + value.dump());
  }
  std::string_view name = value.get_ref<const std::string&>();
  if (torch && name.substr(0, 6) == "torch.") name.remove_prefix(6);
  if (!torch && name.substr(0, 3) == "tl.") name.remove_prefix(3);
  triton_jit::DType dtype;
  if (!triton_jit::parse_dtype(name, &dtype)) {
    throw UsageError(where(index) + ": unknown dtype " + as_json_string(name) + " (" +
                     (torch ? "torch's names: float16, bfloat16, float32, int64, bool, float8_e4m3fn, ...; Triton's "
                              "names work too"
                            : "Triton's names: fp16, bf16, fp32, fp64, i8..i64, u1, u8..u64, fp8e4nv, fp8e5, ...") +
                     ")");
  }
  if (torch && triton_jit::torch_name(dtype).empty()) {
    throw UsageError(where(index) + ": torch has no dtype for " + std::string(triton_jit::dtype_name(dtype)) +
                     "; pass it as {\"dtype\": \"" + std::string(triton_jit::dtype_name(dtype)) + "\"}");
  }
  return torch ? ArgValue::torch_dtype(dtype) : ArgValue::triton_dtype(dtype);
}

}  // namespace

JsonArgs::JsonArgs(const std::string& text, Memory memory) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error for malformed text; out_of_range for a number beyond a double ("1e400").
    throw UsageError("--args is not valid JSON: " + without_exception_id(e.what()));
  }
  IntegerRangeCheck check;
  json::sax_parse(text, &check);
  if (!check.out_of_range.empty()) {
    throw UsageError("--args: integer " + check.out_of_range + " does not fit 64 bits (-2**63 .. 2**64-1)");
  }
  if (!doc.is_array()) {
    throw UsageError("--args must be a JSON list with one item per parameter, e.g. [" + std::string(kPointerForm) +
                     ", 1024], got " + std::string(doc.type_name()));
  }
  values_.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& item = doc[i];
    switch (item.type()) {
      case json::value_t::null: values_.push_back(ArgValue::none()); break;
      case json::value_t::boolean: values_.push_back(ArgValue::boolean(item.get<bool>())); break;
      case json::value_t::number_integer: values_.push_back(ArgValue::integer(item.get<int64_t>())); break;
      case json::value_t::number_unsigned: values_.push_back(ArgValue::unsigned_integer(item.get<uint64_t>())); break;
      case json::value_t::number_float: values_.push_back(ArgValue::floating(item.get<double>())); break;
      case json::value_t::string:
        strings_.push_back(item.get<std::string>());
        values_.push_back(ArgValue::string(strings_.back()));
        break;
      case json::value_t::object:
        if (item.contains("dtype") || item.contains("torch_dtype")) {
          values_.push_back(read_dtype(item, i));
        } else {
          uint64_t bytes = 0;
          triton_jit::DType dtype = triton_jit::DType::u8;
          values_.push_back(read_pointer(item, i, memory, &bytes, &dtype));
          if (bytes != 0) allocations_.push_back(Allocation{i, dtype, bytes});
        }
        break;
      default:
        throw UsageError(where(i) + ": a JSON " + std::string(item.type_name()) +
                         " is not an argument (tuples are not supported); use a number, true/false, null, "
                         "a string, " +
                         kPointerForm + " or " + kDTypeForms);
    }
  }
}

void JsonArgs::allocate() {
  for (const Allocation& a : allocations_) {
    memory_.emplace_back(a.bytes);
    values_[a.index] = ArgValue::pointer(memory_.back().data(), a.dtype, a.bytes);
  }
  allocations_.clear();
}

}  // namespace triton_jit_cli
