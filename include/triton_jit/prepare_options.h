#pragma once

#include <cstddef>

// How prepare() and build_pack() work through a batch of kernels, and what prepare() reports.
namespace triton_jit {

// Progress on stderr: Auto draws a bar when stderr is a terminal; Never is quiet.
enum class Progress { Auto, Always, Never };

struct PrepareOptions {
  // Parallel compiles, each in its own Python process (Triton's compile holds the GIL).
  // 0: one per core; 1: compile in this process, one after another.
  int jobs = 0;
  Progress progress = Progress::Auto;
  // Also load the kernels into the current CUDA context when a device is present, so that a
  // later launch (during graph capture, say) neither compiles nor loads.
  bool load = true;
};

struct PrepareReport {
  size_t requested = 0;   // distinct kernels asked for
  size_t in_memory = 0;   // already in this process
  size_t from_packs = 0;  // taken from loaded packs
  size_t from_index = 0;  // taken from the persistent index
  size_t compiled = 0;    // compiled now
  size_t tuned = 0;       // autotuned calls timed now (a choice read from the index is not counted)
  int workers = 0;        // compile processes used (0: none needed, 1: in this process)
  double seconds = 0;
};

}  // namespace triton_jit
