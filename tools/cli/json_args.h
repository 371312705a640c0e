#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "triton_jit/arg.h"
#include "triton_jit/device.h"
#include "triton_jit/dtype.h"

namespace triton_jit_cli {

// The arguments of a call, read from the JSON list given to --args:
//   7 -> int, 1.5 / 1e3 -> float, true/false -> bool, null -> None, "s" -> string,
//   {"ptr": "fp16", "addr": 4096} -> device pointer, {"dtype": "fp16"} -> tl.float16,
//   {"torch_dtype": "float16"} -> torch.float16,
//   {"ptr": "fp16", "bytes": 1048576} -> that many zeroed bytes of device memory (Memory::Allocate).
// String ArgValues view characters owned by this object: keep it alive while the span is used.
// Throws UsageError with a one-line reason for malformed JSON or an item of no argument form.
class JsonArgs {
 public:
  // Whether {"ptr": ..., "bytes": N} is accepted (triton-jit tune) or refused (every other
  // command: they never touch a GPU).
  enum class Memory { Refuse, Allocate };

  explicit JsonArgs(const std::string& text, Memory memory = Memory::Refuse);
  JsonArgs(const JsonArgs&) = delete;
  JsonArgs& operator=(const JsonArgs&) = delete;

  // Allocates the device memory the "bytes" pointers ask for (zeroed) and points them at it, each
  // with its size as the pointer's extent. Throws NoDeviceError without a GPU.
  void allocate();

  triton_jit::ArgSpan span() const noexcept { return {values_.data(), values_.size()}; }
  size_t size() const noexcept { return values_.size(); }

 private:
  struct Allocation {
    size_t index;
    triton_jit::DType dtype;
    uint64_t bytes;
  };

  std::deque<std::string> strings_;  // a deque: growing it never moves the viewed strings
  std::vector<triton_jit::ArgValue> values_;
  std::vector<Allocation> allocations_;           // the "bytes" pointers, until allocate()
  std::vector<triton_jit::DeviceMemory> memory_;  // their memory, after allocate()
};

}  // namespace triton_jit_cli
