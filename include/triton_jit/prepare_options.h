#pragma once

#include <cstddef>

// How prepare() and build_pack() work through a batch of kernels, and what prepare() reports.
namespace triton_jit {

// Progress on stderr: Auto draws a bar when stderr is a terminal; Never is quiet.
enum class Progress { Auto, Always, Never };

struct PrepareOptions {
  // Parallel compiles on the compile worker processes (Triton's compile holds the GIL), kept
  // for the process's life and shared with other batches and misses (compile_workers(),
  // settings.h). 0: up to compile_workers() at once; 1: compile in this process, one after
  // another; n: up to n at once (the pool grows past its limit for this batch when n is larger).
  int jobs = 0;
  Progress progress = Progress::Auto;
  // The file descriptor the bar is drawn on (stderr by default; a tool that captures stderr can
  // give its terminal's).
  int progress_fd = 2;
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
  int workers = 0;        // compiles run at once (0: none needed, 1: in this process or one worker)
  double seconds = 0;
};

}  // namespace triton_jit
