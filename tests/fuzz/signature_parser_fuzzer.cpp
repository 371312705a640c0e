// Triton's signature syntax as the runtime reads it (src/key/signature_parser.cpp: prepare,
// packs, `triton-jit compile --signature`) on hostile text, against functions with every kind of
// parameter: ArgumentError naming the item, or a specialization that prints and keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "key/key_text.h"
#include "key/signature_parser.h"
#include "triton_jit/errors.h"
#include "triton_jit/signature.h"

using triton_jit::ParamInfo;
using triton_jit::StaticSignature;

namespace {

ParamInfo param(std::string name, int index) {
  ParamInfo p;
  p.name = std::move(name);
  p.index = index;
  return p;
}

triton_jit::DefaultValue int_default(int64_t v) {
  triton_jit::DefaultValue d;
  d.kind = triton_jit::ArgValue::Kind::Int;
  d.int_value = v;
  d.repr = std::to_string(v);
  return d;
}

// Functions shaped like tests/kernels: plain pointers and integers, annotations, constexprs with
// and without defaults, do_not_specialize, a const pointer.
std::vector<StaticSignature> signatures() {
  std::vector<StaticSignature> out;
  StaticSignature add;
  add.function = "add_kernel";
  add.params = {param("x_ptr", 0), param("y_ptr", 1), param("out_ptr", 2), param("n", 3), param("BLOCK", 4)};
  add.params[4].is_constexpr = true;
  add.params[4].annotation = "constexpr";
  out.push_back(add);

  StaticSignature mixed;
  mixed.function = "mixed_kernel";
  mixed.params = {param("a", 0),    param("n", 1),    param("stride", 2),
                  param("flag", 3), param("MODE", 4), param("BLOCK", 5)};
  mixed.params[0].is_const = true;
  mixed.params[0].annotation = "const";
  mixed.params[1].annotation = mixed.params[1].annotation_type = "i64";
  mixed.params[2].do_not_specialize = true;
  mixed.params[3].annotation = mixed.params[3].annotation_type = "u1";
  mixed.params[4].is_constexpr = true;
  mixed.params[4].annotation = "constexpr";
  mixed.params[5].is_constexpr = true;
  mixed.params[5].annotation = "constexpr";
  mixed.params[5].default_value = int_default(128);
  out.push_back(mixed);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<StaticSignature> kSignatures = signatures();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const StaticSignature& s : kSignatures) {
    try {
      const triton_jit::Specialization spec = triton_jit::detail::parse_signature(s, text);
      fuzz::check(spec.params.size() == s.params.size(), "a specialization with another parameter count");
      (void)spec.triton_repr();
      (void)triton_jit::detail::make_kernel_key(spec, nullptr, triton_jit::Target{}).text();
    } catch (const triton_jit::ArgumentError& e) {
      fuzz::check_message(e.what());
    }
  }
  return 0;
}
