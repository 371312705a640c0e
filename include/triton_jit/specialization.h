#pragma once

#include <string>
#include <vector>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

// Triton's specialization of one argument: its type and its hint, i.e. the tuple Triton's binder
// returns ("*fp16", "D"), ("i32", None), ("constexpr", 1024).
struct ParamSpecialization {
  enum class Hint : unsigned char {
    None,         // Python None: not specialized
    NotAligned,   // '': specialized, not divisible by 16 (or alignment not considered)
    Divisible16,  // 'D'
    EqualsOne,    // 1: an annotated integer equal to 1
  };
  std::string type;  // "*fp16", "*kfp32", "i32", "u64", "fp32", "u1" or "constexpr"
  Hint hint = Hint::None;
  // Triton's HIP 'S' after the hint ('DS', 'S'): the pointer's buffer holds at most 2^31 - 1
  // bytes (HIP targets only; the signature syntax writes it ":S").
  bool pointer_range = false;
  std::string value_repr;  // Python repr of the value when type == "constexpr"
};

struct TRITON_JIT_API Specialization {
  std::vector<ParamSpecialization> params;
  int num_warps = kDefaultNumWarps;
  int num_stages = kDefaultNumStages;
  int num_ctas = kDefaultNumCtas;
  std::string target;  // "cuda:90"

  // Triton's signature syntax, one item per parameter: "*fp16:16,i32,1024"; a HIP pointer with
  // Triton's 'S' flag adds ":S" ("*fp16:16:S").
  std::string signature() const;
  // Python's repr of Triton's specialization list: "[('*fp16', 'D'), ('i32', ''), ('constexpr', 1024)]".
  std::string triton_repr() const;
};

}  // namespace triton_jit
