// The one argument binder (triton_jit/binder.h) both front ends use: its table (which parameters
// the caller passes, defaults, names), the positional completion every C++ call goes through, and
// the keyword binding the Python extension does through it (python/src/kernel.cpp's prepare,
// written out here step by step). A keyword call and the positional call it spells must complete
// to the same arguments, and both must name the same missing parameter; the messages are pinned.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"
#include "triton_jit/binder.h"

using triton_jit::ArgumentError;
using triton_jit::ArgValue;
using triton_jit::Binder;
using triton_jit::DecoratorLayer;
using triton_jit::DefaultValue;
using triton_jit::ParamInfo;
using triton_jit::StaticSignature;

namespace {

DefaultValue int_default(int64_t v) {
  DefaultValue d;
  d.kind = ArgValue::Kind::Int;
  d.int_value = v;
  d.repr = std::to_string(v);
  return d;
}

DefaultValue tuple_default() {  // a Python default C++ cannot pass
  DefaultValue d;
  d.repr = "(1, 2)";
  d.representable = false;
  return d;
}

void add_param(StaticSignature& s, const std::string& name, std::optional<DefaultValue> d = std::nullopt) {
  ParamInfo p;
  p.name = name;
  p.index = static_cast<int>(s.params.size());
  p.default_value = std::move(d);
  s.params.push_back(std::move(p));
}

// def k(x_ptr, out_ptr, n, BLOCK=64, SCALE=(1, 2), EVEN=1)
StaticSignature plain_signature() {
  StaticSignature s;
  s.function = "k";
  add_param(s, "x_ptr");
  add_param(s, "out_ptr");
  add_param(s, "n");
  add_param(s, "BLOCK", int_default(64));
  add_param(s, "SCALE", tuple_default());
  add_param(s, "EVEN", int_default(1));
  return s;
}

// The same under @triton.heuristics({"EVEN": ...}) over @triton.autotune(configs setting BLOCK):
// the caller passes x_ptr, out_ptr, n, SCALE; BLOCK (the autotuner's) sits between them.
StaticSignature decorated_signature() {
  StaticSignature s = plain_signature();
  DecoratorLayer heuristics;
  heuristics.kind = DecoratorLayer::Kind::Heuristics;
  heuristics.heuristics.push_back({"EVEN", 5, "", "", ""});
  DecoratorLayer autotune;
  autotune.kind = DecoratorLayer::Kind::Autotune;
  autotune.autotune.configs.resize(2);
  autotune.autotune.configs[0].kwargs.emplace_back(3, int_default(128));
  autotune.autotune.configs[1].kwargs.emplace_back(3, int_default(256));
  // An inner layer setting what an outer one sets does not give it back to the caller.
  autotune.autotune.configs[1].kwargs.emplace_back(5, int_default(0));
  s.decorators = {heuristics, autotune};
  return s;
}

std::string message_of(const std::function<void()>& f, std::string* parameter = nullptr) {
  try {
    f();
  } catch (const ArgumentError& e) {
    if (parameter != nullptr) *parameter = e.parameter();
    return e.what();
  }
  ADD_FAILURE() << "expected an ArgumentError";
  return "";
}

std::vector<ArgValue> complete(const Binder& b, const std::vector<ArgValue>& args) {
  std::vector<ArgValue> full(b.num_params(), ArgValue::integer(-999));
  b.complete(triton_jit::ArgSpan{args.data(), args.size()}, full.data());
  return full;
}

// The Python extension's binding of `positional` then `keywords` (python/src/kernel.cpp, prepare):
// caller slots by position and by name, holes up to the last one given from their defaults, then
// the positional completion with those.
std::vector<ArgValue> bind_like_python(const Binder& b, const std::vector<ArgValue>& positional,
                                       const std::vector<std::pair<std::string, ArgValue>>& keywords) {
  const size_t n = b.caller_params().size();
  if (positional.size() > n) b.fail_too_many_positional("k", positional.size());
  std::vector<std::optional<ArgValue>> slots(n);
  for (size_t i = 0; i < positional.size(); ++i) slots[i] = positional[i];
  size_t count = positional.size();
  for (const auto& [name, value] : keywords) {
    const int position = b.position(name);
    if (position < 0) {
      if (b.set_by_decorator(name)) b.fail_set_by_decorator("k", name);
      continue;  // a launch or compile option
    }
    if (slots[static_cast<size_t>(position)]) b.fail_duplicate("k", static_cast<size_t>(position));
    slots[static_cast<size_t>(position)] = value;
    count = std::max(count, static_cast<size_t>(position) + 1);
  }
  std::vector<ArgValue> given;
  for (size_t i = 0; i < count; ++i) {
    if (slots[i]) {
      given.push_back(*slots[i]);
    } else if (const ArgValue* d = b.caller_default(i)) {
      given.push_back(*d);
    } else {
      b.fail_missing("k", i);
    }
  }
  return complete(b, given);
}

bool same(const std::vector<ArgValue>& a, const std::vector<ArgValue>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind() != b[i].kind() || a[i].as_int() != b[i].as_int()) return false;
  }
  return true;
}

}  // namespace

TEST(Binder, PlainTable) {
  const StaticSignature s = plain_signature();
  const Binder b(s);
  EXPECT_FALSE(b.decorated());
  EXPECT_TRUE(b.callers_lead());
  EXPECT_EQ(b.caller_params(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(b.decorator_params().empty());
  EXPECT_EQ(b.set_by_layer(), std::vector<int>(6, -1));
  EXPECT_FALSE(b.has_default(2));
  EXPECT_TRUE(b.has_default(3));
  EXPECT_EQ(b.default_value(3).as_int(), 64);
  EXPECT_FALSE(b.has_default(4));  // no C++ form
  EXPECT_EQ(b.caller_default(4), nullptr);
  EXPECT_EQ(b.caller_default(5)->as_int(), 1);
  EXPECT_EQ(b.min_args(), 5u);  // SCALE has no usable default: it and all before it are needed
  EXPECT_EQ(b.position("n"), 2);
  EXPECT_EQ(b.position("EVEN"), 5);
  EXPECT_EQ(b.position("num_warps"), -1);
  EXPECT_FALSE(b.set_by_decorator("BLOCK"));
}

TEST(Binder, DecoratedTable) {
  const StaticSignature s = decorated_signature();
  const Binder b(s);
  EXPECT_TRUE(b.decorated());
  EXPECT_FALSE(b.callers_lead());
  EXPECT_EQ(b.caller_params(), (std::vector<uint32_t>{0, 1, 2, 4}));
  EXPECT_EQ(b.decorator_params(), (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(b.set_by_layer(), (std::vector<int>{-1, -1, -1, 1, -1, 0}));
  EXPECT_EQ(b.position("SCALE"), 3);
  EXPECT_EQ(b.position("BLOCK"), -1);
  EXPECT_TRUE(b.set_by_decorator("BLOCK"));
  EXPECT_TRUE(b.set_by_decorator("EVEN"));
  EXPECT_FALSE(b.set_by_decorator("n"));
  EXPECT_EQ(b.min_args(), 4u);
}

TEST(Binder, CompletesPositionalCalls) {
  const StaticSignature s = plain_signature();
  const Binder b(s);
  const auto full = complete(b, test::args(1, 2, 3, 4, 5));
  EXPECT_EQ(full[3].as_int(), 4);
  EXPECT_EQ(full[5].as_int(), 1);  // EVEN's default

  const StaticSignature ds = decorated_signature();
  const Binder d(ds);
  const auto placed = complete(d, test::args(1, 2, 3, 5));
  EXPECT_EQ(placed[2].as_int(), 3);
  EXPECT_EQ(placed[3].kind(), ArgValue::Kind::None);  // BLOCK: None until its layer runs
  EXPECT_EQ(placed[4].as_int(), 5);                   // SCALE, the caller's fourth
  EXPECT_EQ(placed[5].kind(), ArgValue::Kind::None);
}

TEST(Binder, PositionalErrorsNameTheParameters) {
  const StaticSignature s = plain_signature();
  const Binder b(s);
  std::string parameter;
  EXPECT_EQ(message_of([&] { complete(b, test::args(1, 2, 3, 4, 5, 6, 7)); }, &parameter),
            "k takes 6 arguments (x_ptr, out_ptr, n, BLOCK, SCALE, EVEN) but 7 were given");
  EXPECT_EQ(parameter, "");
  EXPECT_EQ(message_of([&] { complete(b, test::args(1, 2)); }, &parameter),
            "k takes 6 arguments (x_ptr, out_ptr, n, BLOCK, SCALE, EVEN) but 2 were given: parameter 'n' is missing "
            "and it has no default");
  EXPECT_EQ(parameter, "n");
  EXPECT_EQ(message_of([&] { complete(b, test::args(1, 2, 3)); }, &parameter),
            "k takes 6 arguments (x_ptr, out_ptr, n, BLOCK, SCALE, EVEN) but 3 were given: parameter 'SCALE' is "
            "missing (its default (1, 2) has no C++ form: pass it explicitly)");
  EXPECT_EQ(parameter, "SCALE");

  const StaticSignature ds = decorated_signature();
  const Binder d(ds);
  EXPECT_EQ(message_of([&] { complete(d, test::args(1, 2, 3, 4, 5)); }),
            "k takes 4 arguments (x_ptr, out_ptr, n, SCALE) but 5 were given; the caller must not pass the "
            "parameters a decorator sets: BLOCK (by @triton.autotune), EVEN (by @triton.heuristics)");
  EXPECT_EQ(message_of([&] { complete(d, test::args(1, 2, 3)); }),
            "k takes 4 arguments (x_ptr, out_ptr, n, SCALE) but 3 were given (a parameter without a usable default "
            "is missing); a decorator sets BLOCK (by @triton.autotune), EVEN (by @triton.heuristics)");
}

TEST(Binder, KeywordErrorsInPythonsWords) {
  const StaticSignature ds = decorated_signature();
  const Binder d(ds);
  std::string parameter;
  EXPECT_EQ(message_of([&] { bind_like_python(d, test::args(1, 2, 3, 4, 5), {}); }, &parameter),
            "k: takes 4 arguments (those no decorator sets) but 5 were given");
  EXPECT_EQ(message_of(
                [&] {
                  bind_like_python(d, test::args(1, 2), {{"out_ptr", ArgValue::integer(9)}});
                },
                &parameter),
            "k: got multiple values for argument 'out_ptr'");
  EXPECT_EQ(parameter, "out_ptr");
  EXPECT_EQ(message_of(
                [&] {
                  bind_like_python(d, test::args(1), {{"SCALE", ArgValue::integer(9)}});
                },
                &parameter),
            "k: missing a required argument: 'out_ptr'");
  EXPECT_EQ(parameter, "out_ptr");
  EXPECT_EQ(message_of(
                [&] {
                  bind_like_python(d, test::args(1, 2, 3, 4), {{"BLOCK", ArgValue::integer(9)}});
                },
                &parameter),
            "k: 'BLOCK' is set by a @triton.autotune config or a @triton.heuristics value; do not pass it");
  EXPECT_EQ(parameter, "BLOCK");

  const StaticSignature s = plain_signature();
  const Binder b(s);
  EXPECT_EQ(message_of([&] { bind_like_python(b, test::args(1, 2, 3, 4, 5, 6, 7), {}); }),
            "k: takes 6 arguments but 7 were given");
}

// Every split of a call into a positional prefix and keywords (in both orders) binds as the
// positional call does, and a call missing a parameter fails on that parameter both ways.
TEST(Binder, KeywordCallsCompleteAsTheirPositionalCall) {
  for (const StaticSignature& s : {plain_signature(), decorated_signature()}) {
    const Binder b(s);
    const size_t n = b.caller_params().size();
    std::vector<ArgValue> all;
    for (size_t i = 0; i < n; ++i) all.push_back(ArgValue::integer(static_cast<int64_t>(100 + i)));
    for (size_t given = b.min_args(); given <= n; ++given) {
      const std::vector<ArgValue> positional_call(all.begin(), all.begin() + static_cast<long>(given));
      const std::vector<ArgValue> expected = complete(b, positional_call);
      for (size_t split = 0; split <= given; ++split) {
        for (bool reversed : {false, true}) {
          SCOPED_TRACE(s.function + " given=" + std::to_string(given) + " split=" + std::to_string(split));
          std::vector<std::pair<std::string, ArgValue>> keywords;
          for (size_t i = split; i < given; ++i) keywords.emplace_back(s.params[b.caller_params()[i]].name, all[i]);
          if (reversed) std::reverse(keywords.begin(), keywords.end());
          const std::vector<ArgValue> prefix(all.begin(), all.begin() + static_cast<long>(split));
          EXPECT_TRUE(same(bind_like_python(b, prefix, keywords), expected));
        }
      }
    }
    // Leave out one parameter without a usable default: both ways fail on it.
    for (size_t missing = 0; missing < b.min_args(); ++missing) {
      if (b.caller_default(missing) != nullptr) continue;
      std::vector<std::pair<std::string, ArgValue>> keywords;
      for (size_t i = missing + 1; i < n; ++i) keywords.emplace_back(s.params[b.caller_params()[i]].name, all[i]);
      const std::vector<ArgValue> before(all.begin(), all.begin() + static_cast<long>(missing));
      std::string by_keyword, by_position;
      const std::string keyword_message = message_of([&] { bind_like_python(b, before, keywords); }, &by_keyword);
      const std::string positional_message = message_of([&] { complete(b, before); }, &by_position);
      const std::string& name = s.params[b.caller_params()[missing]].name;
      if (keywords.empty()) {
        // Nothing given after it: both are the positional call, and fail as it does.
        EXPECT_EQ(keyword_message, positional_message);
      } else {
        EXPECT_EQ(by_keyword, name);
      }
      // A plain function's positional error names it too (a decorated one's lists the parameters).
      if (!b.decorated()) EXPECT_EQ(by_position, name);
    }
  }
}

// A function's binder is the one its calls go through: a C++ call leaving out a trailing
// parameter gets the default the binder holds.
TEST(Binder, FunctionsBindThroughTheirBinder) {
  auto& fn = triton_jit::TritonJitFunction::get(test::kernel("defaults.py"), "defaults_kernel");
  const Binder& b = fn.binder();
  EXPECT_EQ(&b.signature(), &fn.signature());
  ASSERT_EQ(b.caller_params().size(), fn.signature().params.size());
  ASSERT_EQ(b.min_args(), 2u);
  std::vector<ArgValue> args = test::args(test::ptr(0x1000), 100);
  const auto left_out = fn.specialize(test::config(), test::span(args)).signature();
  for (size_t i = b.min_args(); i < b.caller_params().size(); ++i) args.push_back(*b.caller_default(i));
  EXPECT_EQ(fn.specialize(test::config(), test::span(args)).signature(), left_out);
  EXPECT_EQ(left_out, "*fp32:16,i32,128,'fast',None,1.5,True,i32,1");
}
