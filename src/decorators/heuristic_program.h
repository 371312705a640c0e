#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/arg.h"

// A @triton.heuristics value translated by the bridge (translate_heuristic in
// src/bridge/python/triton_jit_bridge/heuristic_translation.py) into a small stack program, evaluated per call with Python's semantics and
// without Python, allocation or locks.
//
// Text format (stored in the persistent kernel index; a change of meaning bumps the version):
//
//   heuristic-program 1          first line: the format's version
//   <op> [operands]              then one instruction per line; instruction i is line i + 2
//
// Values are Python's: None, bool, int (exact in 128 bits here), float, str, dtype (Triton's
// tl.float16 or torch's torch.float16) and a pointer argument (a tensor in Python). The program
// leaves exactly one value on the stack: the result.
//
//   push       param N                 the argument of parameter N (args['name'])
//              int V                   decimal, -2^63 <= V < 2^64
//              float X                 float.hex() text: 0x1.8p+1, -0x0.0p+0, inf, -inf, nan
//              bool 0|1 / none
//              str HEX                 the UTF-8 bytes in hex ("str" alone: the empty string)
//              dtype NAME tl|torch     NAME as dtype_name() spells it (fp16): tl.float16 / torch.float16
//   unary      neg pos invert not      -x +x ~x `not x`
//              isnone istrue isfalse   `x is None`, `x is True`, `x is False` (`is not`: then `not`)
//              abs int float bool      the builtins
//              next_power_of_2         triton.next_power_of_2
//              dtype_of element_size   x.dtype (torch's dtype) and x.element_size() of a pointer
//   binary     add sub mul truediv floordiv mod pow lshift rshift bitand bitor bitxor
//              eq ne lt le gt ge cdiv  (cdiv: triton.cdiv, (x + y - 1) // y)
//   n-ary      min N / max N           N >= 2 values, Python's min/max of positional arguments
//   jumps      jump T                  to instruction T (forward only; T may be the end)
//              jump_if_true_or_pop T   `or`: a truthy top stays and jumps, else it is popped
//              jump_if_false_or_pop T  `and`, and chained comparisons (a < b < c)
//              pop_jump_if_false T     conditional expressions: pops the condition
//
// The program assumes every parameter has a value in the call (the caller fills defaults), so
// args.get('x', d) reads parameter x.
namespace triton_jit::detail {

class HeuristicProgram {
 public:
  // Parses the bridge's text; throws std::invalid_argument naming the bad line.
  static HeuristicProgram parse(std::string_view text);

  enum class Outcome { Value, NeedsPython };

  // Evaluates over a call's arguments (one per parameter, index = parameter index). Allocates
  // nothing, takes no lock, noexcept. NeedsPython whenever the program cannot give Python's exact
  // answer: an integer beyond 128 bits on the way or a result beyond [-2^63, 2^64), an exception
  // Python would raise (TypeError, ZeroDivisionError, ValueError, OverflowError), an operation on
  // a kind it does not model (string arithmetic and conversions, a pointer's truth value or
  // comparison, a result that is a pointer, a float power giving a complex number). The caller then
  // runs the Python heuristic, which gives Python's result or its exception.
  // A string result views this program's constants (or the caller's argument it passes through);
  // it stays valid as long as the program (or a copy of it) lives.
  Outcome evaluate(const ArgValue* args, size_t num_args, ArgValue* result) const noexcept;

  const std::string& text() const noexcept { return text_; }                          // what parse() was given
  const std::vector<uint32_t>& params_read() const noexcept { return params_read_; }  // sorted, unique

  static constexpr int kVersion = 1;   // defined here only: the build writes both into the bridge's
  static constexpr int kMaxStack = 64;  // module _formats, which its translator uses (embed_bridge.cmake)

  // One parsed instruction (the text's line); the evaluator's form, not a stable format.
  enum class Op : uint8_t {
    // clang-format off
    Param, Int, Float, Bool, None, Str, DType,
    Neg, Pos, Invert, Not, IsNone, IsTrue, IsFalse, Abs, ToInt, ToFloat, ToBool, NextPowerOf2, DTypeOf, ElementSize,
    Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor,
    Eq, Ne, Lt, Le, Gt, Ge, CDiv,
    Min, Max,
    Jump, JumpIfTrueOrPop, JumpIfFalseOrPop, PopJumpIfFalse,
    // clang-format on
  };
  struct Insn {
    Op op = Op::None;
    bool flag = false;  // Int: the value is unsigned (>= 2^63); DType: torch's spelling
    DType dtype = DType::u8;
    uint32_t a = 0;     // Param: index; jumps: target; Min/Max: count; Str: length
    uint64_t bits = 0;  // Int: the value's bits; Float: the double's bits; Str: offset in strings_
  };

 private:
  std::string text_;
  std::vector<Insn> code_;
  std::vector<uint32_t> params_read_;
  std::shared_ptr<const std::string> strings_;  // string constants, at stable addresses
};

}  // namespace triton_jit::detail
