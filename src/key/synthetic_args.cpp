#include "key/synthetic_args.h"

#include <cstdlib>

#include "key/repr.h"
#include "triton_jit/dtype.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

// Python's repr of a str back to its characters (the escapes python_str_repr writes).
bool unrepr_string(const std::string& repr, std::string* out) {
  if (repr.size() < 2 || (repr[0] != '\'' && repr[0] != '"') || repr.back() != repr[0]) return false;
  for (size_t i = 1; i + 1 < repr.size(); ++i) {
    char c = repr[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (i + 2 >= repr.size()) return false;
    c = repr[++i];
    switch (c) {
      case 'n': *out += '\n'; break;
      case 't': *out += '\t'; break;
      case 'r': *out += '\r'; break;
      case '\\':
      case '\'':
      case '"': *out += c; break;
      case 'x':
        if (i + 3 >= repr.size()) return false;
        *out += static_cast<char>(std::strtol(repr.substr(i + 1, 2).c_str(), nullptr, 16));
        i += 2;
        break;
      default: return false;
    }
  }
  return true;
}

bool constexpr_arg(const std::string& repr, SyntheticArgs* out, ArgValue* arg) {
  if (repr == "None") return *arg = ArgValue::none(), true;
  DType dtype;
  bool torch = false;
  if (parse_python_dtype(repr, &dtype, &torch)) {
    *arg = torch ? ArgValue::torch_dtype(dtype) : ArgValue::triton_dtype(dtype);
    return true;
  }
  if (repr == "True" || repr == "False") return *arg = ArgValue::boolean(repr == "True"), true;
  if (repr[0] == '\'' || repr[0] == '"') {
    std::string text;
    if (!unrepr_string(repr, &text)) return false;
    out->strings.push_back(std::move(text));
    *arg = ArgValue::string(out->strings.back());
    return true;
  }
  char* end = nullptr;
  if (repr.find_first_of(".eEna") == std::string::npos) {
    if (repr[0] == '-') {
      *arg = ArgValue::integer(std::strtoll(repr.c_str(), &end, 10));
    } else {
      *arg = ArgValue::unsigned_integer(std::strtoull(repr.c_str(), &end, 10));
    }
  } else {
    *arg = ArgValue::floating(std::strtod(repr.c_str(), &end));
  }
  return end != nullptr && *end == '\0';
}

// A descriptor of "tensordesc<fp16[64, 64]>": an aligned base, the block shape as its shape, and
// 16-byte aligned strides.
bool descriptor_arg(const std::string& type, SyntheticArgs* out, ArgValue* arg) {
  const size_t open = type.find('['), close = type.find(']');
  DType dtype;
  if (open == std::string::npos || close == std::string::npos ||
      !parse_dtype(type.substr(11, open - 11), &dtype)) {  // after "tensordesc<"
    return false;
  }
  TensorDescriptor d;
  d.base = TypedPtr{reinterpret_cast<const void*>(uintptr_t{0x10000}), dtype};
  size_t start = open + 1;
  while (start < close && d.rank < TensorDescriptor::kMaxRank) {
    const int32_t block = static_cast<int32_t>(std::strtol(type.c_str() + start, nullptr, 10));
    d.block_shape[d.rank] = block;
    d.shape[d.rank] = block;
    d.strides[d.rank] = 1024;
    ++d.rank;
    start = type.find(',', start);
    start = start == std::string::npos || start > close ? close : start + 1;
  }
  if (d.rank == 0) return false;
  d.strides[d.rank - 1] = 1;
  out->descriptors.push_back(d);
  *arg = ArgValue::tensor_descriptor(&out->descriptors.back(), dtype);
  return true;
}

bool runtime_arg(const ParamSpecialization& p, ArgValue* arg) {
  const bool divisible = p.hint == ParamSpecialization::Hint::Divisible16;
  std::string type = p.type;
  if (type[0] == '*') {
    DType dtype;
    if (!parse_dtype(type.substr(type.size() > 1 && type[1] == 'k' ? 2 : 1), &dtype)) return false;
    const void* address = reinterpret_cast<const void*>(uintptr_t{divisible ? 0x10000u : 0x10008u});
    // HIP's 'S': a pointer into a buffer of a known size under 2 GiB; else one of unknown size.
    *arg = p.pointer_range ? ArgValue::pointer(address, dtype, 4096)
                           : ArgValue::pointer_address(divisible ? 0x10000 : 0x10008, dtype);
    return true;
  }
  if (type == "u1") return *arg = ArgValue::boolean(true), true;
  if (type == "fp16" || type == "bf16" || type == "fp32" || type == "fp64") {
    return *arg = ArgValue::floating(1.5), true;
  }
  // Unannotated integers take the narrowest of i32, i64, u64 that holds the value.
  uint64_t base = 0x100;
  if (type == "i64") base = uint64_t{1} << 40;
  if (type == "u64") base = uint64_t{1} << 63;
  *arg = ArgValue::unsigned_integer(base + (divisible ? 16 : 3));
  return true;
}

}  // namespace

SyntheticArgs synthesize_args(const StaticSignature& signature, const Specialization& spec) {
  SyntheticArgs out;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpecialization& p = spec.params[i];
    ArgValue arg;
    const bool ok = p.type == "constexpr"                 ? constexpr_arg(p.value_repr, &out, &arg)
                    : p.type.rfind("tensordesc<", 0) == 0 ? descriptor_arg(p.type, &out, &arg)
                                                          : runtime_arg(p, &arg);
    if (!ok) {
      const std::string item = p.type == "constexpr" ? p.value_repr : p.type;
      throw ArgumentError(
          signature.function + ": no argument of parameter '" + signature.params[i].name + "' specializes as " + item,
          signature.function, signature.params[i].name);
    }
    out.values.push_back(arg);
  }
  return out;
}

}  // namespace triton_jit::detail
