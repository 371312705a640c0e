#include "key/signature_parser.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "key/repr.h"
#include "key/spec_key.h"
#include "triton_jit/dtype.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

// Splits at commas outside quotes and brackets ("tensordesc<fp16[64,64]>" is one item).
std::vector<std::string> split_items(std::string_view text) {
  std::vector<std::string> items;
  std::string current;
  char quote = 0;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      current += c;
      if (c == '\\' && i + 1 < text.size()) {
        current += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      current += c;
    } else if (c == '[' || c == ']') {
      depth += c == '[' ? 1 : -1;
      current += c;
    } else if (c == ',' && depth > 0) {
      current += c;
    } else if (c == ',') {
      items.push_back(current);
      current.clear();
    } else if (c != ' ') {
      current += c;
    }
  }
  if (!current.empty() || !items.empty()) items.push_back(current);
  return items;
}

// "tensordesc<fp16[64,64]>" (spaces optional): Triton's type of a tensor descriptor, spelled as
// Triton spells it ("tensordesc<fp16[64, 64]>").
bool parse_descriptor_type(const std::string& item, ParamSpecialization* out) {
  const std::string prefix = "tensordesc<";
  if (item.compare(0, prefix.size(), prefix) != 0 || item.back() != '>') return false;
  const size_t open = item.find('[');
  const size_t close = item.find(']');
  if (open == std::string::npos || close == std::string::npos || close != item.size() - 2) return false;
  DType dtype;
  const std::string name = item.substr(prefix.size(), open - prefix.size());
  if (!parse_dtype(name, &dtype) || dtype_name(dtype) != name) return false;
  std::string type = prefix + name + "[";
  size_t start = open + 1;
  int rank = 0;
  while (start < close) {
    size_t comma = item.find(',', start);
    if (comma == std::string::npos || comma > close) comma = close;
    const std::string dim = item.substr(start, comma - start);
    char* end = nullptr;
    const long v = std::strtol(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || v <= 0 || (v & (v - 1)) != 0) return false;
    type += (rank++ ? ", " : "") + std::to_string(v);
    start = comma + 1;
  }
  if (rank < 1 || rank > 5) return false;
  out->type = type + "]>";
  out->hint = ParamSpecialization::Hint::None;
  return true;
}

bool parse_type(const std::string& item, ParamSpecialization* out) {
  if (parse_descriptor_type(item, out)) return true;
  std::string t = item;
  bool divisible = false;
  // HIP's 'S' (":S", after ":16"), on pointers only.
  const bool range = t.size() > 3 && t[0] == '*' && t.compare(t.size() - 2, 2, ":S") == 0;
  if (range) t.resize(t.size() - 2);
  if (t.size() > 3 && t.compare(t.size() - 3, 3, ":16") == 0) {
    divisible = true;
    t.resize(t.size() - 3);
  }
  std::string base = t;
  if (!base.empty() && base[0] == '*') base = base.substr(base.size() > 1 && base[1] == 'k' ? 2 : 1);
  DType dtype;
  if (!parse_dtype(base, &dtype) || dtype_name(dtype) != base) return false;
  out->type = t;
  out->hint = divisible ? ParamSpecialization::Hint::Divisible16 : ParamSpecialization::Hint::NotAligned;
  out->pointer_range = range;
  // Triton's binder never specializes a bool or a float scalar: ('fp32', None), not ('fp32', '').
  // The hint reaches Triton's attributes, so '' would compile under another Triton hash.
  const bool never_specialized = t[0] != '*' && (t == "u1" || t.rfind("fp", 0) == 0 || t.rfind("bf", 0) == 0);
  if (never_specialized && !divisible) out->hint = ParamSpecialization::Hint::None;
  return true;
}

// A Python literal or a dtype for a constexpr, checked and normalized to Python's repr.
bool parse_literal(const std::string& item, std::string* repr) {
  if (item == "None" || item == "True" || item == "False") {
    *repr = item;
    return true;
  }
  DType dtype;
  bool torch = false;
  if (parse_python_dtype(item, &dtype, &torch)) {
    *repr = python_dtype_repr(dtype, torch);
    return !repr->empty();
  }
  if (item.size() >= 2 && (item[0] == '\'' || item[0] == '"') && item.back() == item[0]) {
    std::string value;
    for (size_t i = 1; i + 1 < item.size(); ++i) {
      if (item[i] == '\\' && i + 2 < item.size()) {
        const char e = item[++i];
        value += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else {
        value += item[i];
      }
    }
    *repr = python_str_repr(value);
    return true;
  }
  const char* begin = item.c_str();
  char* end = nullptr;
  errno = 0;
  if (item.find_first_of(".eEn") == std::string::npos) {
    std::strtoll(begin, &end, 10);
    if (*end == '\0' && errno == 0 && end != begin) {
      *repr = std::to_string(std::strtoll(begin, nullptr, 10));
      return true;
    }
    errno = 0;
    unsigned long long u = std::strtoull(begin, &end, 10);
    if (*end == '\0' && errno == 0 && end != begin && item[0] != '-') {
      *repr = std::to_string(u);
      return true;
    }
    return false;
  }
  const double d = std::strtod(begin, &end);
  if (*end == '\0' && end != begin) {
    *repr = python_float_repr(d);
    return true;
  }
  return false;
}

}  // namespace

Specialization parse_signature(const StaticSignature& signature, std::string_view text) {
  std::vector<std::string> items = split_items(text);
  const size_t num_params = signature.params.size();
  auto count_error = [&](const std::string& why, const std::string& parameter) {
    return ArgumentError(signature.function + ": the signature '" + std::string(text) + "' has " +
                             std::to_string(items.size()) + " items but the function has " +
                             std::to_string(num_params) + " parameters" + why,
                         signature.function, parameter);
  };
  if (items.size() > num_params) throw count_error("", "");
  // Trailing parameters with defaults may be left out, as a call (and `specialize`) leaves them out.
  for (size_t i = items.size(); i < num_params; ++i) {
    const ParamInfo& p = signature.params[i];
    if (!p.default_value) {
      throw count_error(": parameter '" + p.name + "' is missing and it has no default", p.name);
    }
    if (!p.default_value->representable) {
      throw count_error(": parameter '" + p.name + "' is missing (its default " + p.default_value->repr +
                            " has no C++ form: give it explicitly)",
                        p.name);
    }
  }
  Specialization spec;
  spec.params.reserve(num_params);
  for (size_t i = 0; i < num_params; ++i) {
    if (i >= items.size()) {
      // The default, specialized by the rules a call applies to it (an int default of 1 is the
      // constexpr 1, None is None, ...).
      const ParamInfo& p = signature.params[i];
      const ArgValue value = p.default_value->to_arg();
      ParamCode code;
      ArgProblem problem = ArgProblem::None;
      if (!specialize_param(make_rule(p), value, &code, &problem)) {
        throw count_error(": parameter '" + p.name + "' is missing and its default " + p.default_value->repr +
                              " does not fit its annotation: give it explicitly",
                          p.name);
      }
      spec.params.push_back(describe(code, value));
      continue;
    }
    const ParamInfo& p = signature.params[i];
    ParamSpecialization ps;
    if (!p.is_constexpr && parse_type(items[i], &ps)) {
      // Triton's syntax does not say whether an unaligned value was specialized; the compiled
      // code is the same either way, so follow the parameter's own setting.
      if (ps.hint == ParamSpecialization::Hint::NotAligned && p.do_not_specialize) {
        ps.hint = ParamSpecialization::Hint::None;
      }
    } else if (parse_literal(items[i], &ps.value_repr)) {
      ps.type = "constexpr";
      DType dtype;
      bool torch = false;
      if (!p.is_constexpr && parse_python_dtype(ps.value_repr, &dtype, &torch)) {
        throw ArgumentError(signature.function + ": parameter '" + p.name + "' is a runtime parameter; the dtype " +
                                ps.value_repr + " can only be given to a tl.constexpr parameter",
                            signature.function, p.name);
      }
    } else {
      throw ArgumentError(signature.function + ": cannot read '" + items[i] + "' for parameter '" + p.name +
                              "': expected " +
                              (p.is_constexpr ? "a constexpr value (1024, True, 1.5, None, 'text', "
                                                "triton.language.float16, torch.float16)"
                                              : "a Triton type (*fp16:16, i32, i64:16, fp32, "
                                                "tensordesc<fp16[64,64]>) or a constexpr value"),
                          signature.function, p.name);
    }
    spec.params.push_back(std::move(ps));
  }
  return spec;
}

}  // namespace triton_jit::detail
