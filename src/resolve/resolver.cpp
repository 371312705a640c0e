// The miss path (resolver.h): memory, packs, index, compile, store, insert; written once for a
// launch's single kernel and for prepare's and pack building's batches.
#include "resolve/resolver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>

#include "bridge/compile_pool.h"
#include "cuda/device.h"
#include "cuda/driver_api.h"
#include "key/signature_parser.h"
#include "key/synthetic_args.h"
#include "resolve/progress_bar.h"
#include "settings/settings.h"
#include "store/compile_lock.h"
#include "store/index_entries.h"
#include "store/pack.h"
#include "store/pack_registry.h"

namespace triton_jit::detail {
namespace {

// One kernel being resolved: the key a launch computes and what compiling it needs.
struct Job {
  FunctionState* fn = nullptr;
  SpecKey key;
  const ArgValue* args = nullptr;  // with defaults; the key's string constexprs view them
  Specialization spec;
  KernelKey kernel_key;
  const CompileOptions* options = nullptr;
  Target target;
  const KernelEntry* entry = nullptr;  // the result
  bool stored_meanwhile = false;       // found in the index once another process had compiled it
};

enum class Found { Memory, Pack, Index, Nowhere };

// Why a kernel that is nowhere cannot be compiled here.
enum class CannotCompile { Offline, NoSource, NoPython, Capturing };

// The string constexprs of a call: keyed by hash in the table, compared by characters on a hit.
std::vector<std::pair<int, std::string>> string_constexprs(const SpecKey& key, const ArgValue* args) {
  std::vector<std::pair<int, std::string>> strings;
  for (uint32_t i = 0; i < key.num_params; ++i) {
    const ParamCode code = key.param(i);
    if (code.kind() == TypeKind::Constexpr && code.value_kind() == ArgValue::Kind::String) {
      strings.emplace_back(static_cast<int>(i), std::string(args[i].as_string()));
    }
  }
  return strings;
}

[[noreturn]] void fail_missing(const FunctionState& fn, const KernelKey& key, CannotCompile why,
                               const std::string& detail = "") {
  std::string reason;
  switch (why) {
    case CannotCompile::Offline:
      reason = "offline mode is on (TRITON_JIT_OFFLINE=1 or set_offline), so nothing compiles";
      break;
    case CannotCompile::NoSource:
      reason = fn.module.empty() ? "the kernel's source file " + fn.path + " is not there to compile from"
                                 : "the module " + fn.module + " was found in a pack only (its file is unknown " +
                                       "without Python), so there is no source to compile from";
      break;
    case CannotCompile::NoPython: reason = "it cannot be compiled here: " + detail; break;
    case CannotCompile::Capturing:
      reason = "the launch is being captured into a CUDA graph, where compiling is not allowed. Call "
               "triton_jit::prepare() with this specialization before capturing";
      break;
  }
  std::string packs;
  for (const PackInfo& p : loaded_packs()) packs += (packs.empty() ? "" : ", ") + p.path;
  const std::string near = PackRegistry::instance().explain_miss(fn.path, fn.name, fn.pack_sha256, key);
  const std::string line = key.manifest_line(fn.source(), fn.name);
  throw MissingKernelError(
      "no kernel for " + fn.signature.function + " [" + key.signature + "] num_warps=" + std::to_string(key.num_warps) +
          " num_stages=" + std::to_string(key.num_stages) + " num_ctas=" + std::to_string(key.num_ctas) +
          (key.options.empty() ? "" : " options " + key.options) + " for " + key.target.str() + ": it is in no " +
          (packs.empty() ? "loaded pack (none is loaded)" : "loaded pack (" + packs + ")") +
          (near.empty() ? "" : " (" + near + ")") + " and not in the kernel index, and " + reason +
          ". To ship it, add this line to a pack manifest and run `triton-jit pack`:\n  " + line,
      fn.signature.function, key.text(), line);
}

// From a loaded pack, else the persistent index.
std::optional<CompiledKernel> find_stored(FunctionState& fn, const KernelKey& key, Found* found) {
  if (auto kernel = PackRegistry::instance().find_kernel(fn.name, fn.pack_sha256, key)) {
    fn.pack_hits.fetch_add(1, std::memory_order_relaxed);
    *found = Found::Pack;
    return kernel;
  }
  std::string stale;
  if (auto record = KernelIndex::instance().load(fn.path, fn.name, key, bridge::python_environment(), &stale)) {
    fn.index_hits.fetch_add(1, std::memory_order_relaxed);
    *found = Found::Index;
    return std::move(record->kernel);
  }
  if (!stale.empty() && log_enabled(LogLevel::Info)) {
    log_line("index entry of " + fn.name + " [" + key.signature + "] is stale: " + stale);
  }
  return std::nullopt;
}

// Puts a kernel in the table unless one is there for the key already; returns the one kept.
const KernelEntry* insert(FunctionState& fn, const SpecKey& key, const ArgValue* args, const CompiledKernel& kernel,
                          const KernelKey& kernel_key) {
  auto entry = std::make_unique<KernelEntry>(key, string_constexprs(key, args), kernel, fn.signature, kernel_key.text());
  std::lock_guard<std::mutex> lock(fn.compile_mutex);
  if (const KernelEntry* existing = fn.table.find(key, args)) return existing;
  const KernelEntry* result = entry.get();
  fn.table.insert(std::move(entry));
  return result;
}

// The kernel from memory, a pack or the index, when one of them has it.
Found find_ready(Job& job) {
  if ((job.entry = job.fn->table.find(job.key, job.args)) != nullptr) return Found::Memory;
  Found found = Found::Nowhere;
  if (auto kernel = find_stored(*job.fn, job.kernel_key, &found))
    job.entry = insert(*job.fn, job.key, job.args, *kernel, job.kernel_key);
  return found;
}

// Records a fresh compile in the persistent index.
void store_in_index(const FunctionState& fn, const KernelKey& key, const bridge::CompileResult& compiled) {
  if (KernelIndex::instance().directory().empty()) return;
  KernelRecord record;
  record.function_path = fn.path;
  record.function_name = fn.name;
  record.key = key;
  record.created_unix = static_cast<int64_t>(std::time(nullptr));
  record.kernel = compiled.kernel;
  for (const std::string& file : compiled.dependency_files) {
    // A dependency that cannot be read now cannot be checked later: keep the kernel in memory only.
    auto dep = describe_file(file, true);
    if (!dep) return;
    record.dependencies.push_back(std::move(*dep));
  }
  if (auto dep = describe_file(compiled.triton_file, false)) record.dependencies.push_back(std::move(*dep));
  KernelIndex::instance().store(record, bridge::python_environment());
}

// The log line of a compile that started at `start`; `where` names a worker's compile.
void log_compiled(const FunctionState& fn, const Specialization& spec, const Target& target,
                  std::chrono::steady_clock::time_point start, const char* where) {
  if (!log_enabled(LogLevel::Info)) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ms);
  log_line("compiled " + fn.signature.function + " [" + spec.signature() +
           "] num_warps=" + std::to_string(spec.num_warps) + " num_stages=" + std::to_string(spec.num_stages) +
           " num_ctas=" + std::to_string(spec.num_ctas) + " for " + target.str() + " in " + buf + " ms" + where);
}

// Rejects, before anything compiles, a target the installed Triton cannot build and compile
// options it does not take or of the wrong type (ArgumentError). Where nothing may compile, or
// Python cannot run, the compile path reports that instead.
void check_compilable(const FunctionState& fn, const CompileOptions* options, const Target& target) {
  if (offline() || fn.source_sha256.empty()) return;
  try {
    bridge::check_compile_request(fn.signature.function, options, target);
  } catch (const PythonError&) {
  }
}

// Compiles in this process, through Python.
bridge::CompileResult compile_here(FunctionState& fn, const Specialization& spec, const KernelKey& key,
                                   const CompileOptions* options, const Target& target) {
  if (offline()) fail_missing(fn, key, CannotCompile::Offline);
  if (fn.source_sha256.empty()) fail_missing(fn, key, CannotCompile::NoSource);
  bridge::PyHandle py;
  try {
    py = fn.python_function();
  } catch (const PythonError& e) {
    fail_missing(fn, key, CannotCompile::NoPython, e.what());
  }
  check_compilable(fn, options, target);
  const auto start = std::chrono::steady_clock::now();
  bridge::CompileResult compiled = bridge::compile(py, fn.signature, spec, key.text(), options, target);
  fn.compiles.fetch_add(1, std::memory_order_relaxed);
  log_compiled(fn, spec, target, start, "");
  return compiled;
}

// A job as a worker process takes it.
bridge::CompileJob pool_job(const Job& job) {
  bridge::CompileJob w;
  w.source = job.fn->source();
  w.name = job.fn->name;
  w.signature = &job.fn->signature;
  w.spec = job.spec;
  w.key = job.kernel_key.text();
  w.options = job.options;
  w.target = job.target;
  return w;
}

// Whether a worker may compile `fn`: not when the host handed its module over (a Python host's
// script, say, which must not run again in a worker); with no usable Python, the compile itself
// reports that.
bool workers_may_load(const FunctionState& fn) {
  if (fn.source_sha256.empty() || offline()) return true;
  try {
    return bridge::workers_may_load(fn.source());
  } catch (const PythonError&) {
    return true;
  }
}

// A miss is bound for the pool while this process may still be starting Python: the pool's fork
// server boots meanwhile instead of after (bridge::prestart_fork_server).
void prestart_pool(const FunctionState& fn) {
  if (offline() || fn.source_sha256.empty()) return;
  try {
    bridge::prestart_fork_server(false);
  } catch (const std::exception&) {  // the bridge cannot load: the compile says why
  }
}

// Compiles on a worker process of the pool.
bridge::CompileResult compile_on_worker(const Job& job) {
  FunctionState& fn = *job.fn;
  if (offline()) fail_missing(fn, job.kernel_key, CannotCompile::Offline);
  if (fn.source_sha256.empty()) fail_missing(fn, job.kernel_key, CannotCompile::NoSource);
  const auto start = std::chrono::steady_clock::now();
  bridge::CompileResult compiled;
  try {
    compiled = bridge::compile_in_pool(pool_job(job));
  } catch (const PythonError& e) {
    fail_missing(fn, job.kernel_key, CannotCompile::NoPython, e.what());
  }
  fn.compiles.fetch_add(1, std::memory_order_relaxed);
  log_compiled(fn, job.spec, job.target, start, " on a worker process");
  return compiled;
}

// One kernel: in this process when its interpreter is free (a lone miss: no worker to start,
// nothing to send, Triton warm), else on the worker pool, so that concurrent misses on
// different keys compile in parallel instead of queueing for the GIL (docs/DESIGN.md).
bridge::CompileResult compile_one(const Job& job) {
  if (compile_workers() != 0 && !InterpreterSlot::try_claim()) {
    prestart_pool(*job.fn);
    if (workers_may_load(*job.fn)) return compile_on_worker(job);
    return compile_here(*job.fn, job.spec, job.kernel_key, job.options, job.target);  // queues for the GIL
  }
  struct Release {
    bool held;
    ~Release() {
      if (held) InterpreterSlot::release();
    }
  } release_when_done{compile_workers() != 0};
  return compile_here(*job.fn, job.spec, job.kernel_key, job.options, job.target);
}

// Stores a fresh compile in the index and inserts it into its function's table.
void finish(Job& job, bridge::CompileResult& compiled) {
  store_in_index(*job.fn, job.kernel_key, compiled);
  job.entry = insert(*job.fn, job.key, job.args, compiled.kernel, job.kernel_key);
}

// The compile lock of a job's kernel among the processes sharing the index (store/compile_lock.h),
// waiting up to `wait` for another process that holds it. None where nothing is shared or nothing
// can compile.
CompileLock lock_compile(const Job& job, std::chrono::milliseconds wait) {
  if (compile_lock_timeout().count() == 0 || offline() || job.fn->source_sha256.empty()) return {};
  const std::string file = KernelIndex::instance().compile_lock_file(job.fn->path, job.fn->name, job.kernel_key,
                                                                     bridge::python_environment());
  if (wait.count() == 0) return CompileLock::take(file, wait);
  bridge::ScopedGilRelease release;  // the holder may be a thread of this process needing the GIL
  return CompileLock::take(file, wait);
}

// Under the lock: whether another process stored the kernel since this one missed it; then it
// is taken from there (an index hit, no compile).
bool stored_meanwhile(Job& job) {
  Found found = Found::Nowhere;
  auto kernel = find_stored(*job.fn, job.kernel_key, &found);
  if (!kernel) return false;
  job.entry = insert(*job.fn, job.key, job.args, *kernel, job.kernel_key);
  job.stored_meanwhile = true;
  return true;
}

// A miss's kernel compiled once across the processes sharing the index: this one compiles it
// under its lock, unless another process did meanwhile.
void compile_once(Job& job) {
  CompileLock lock = lock_compile(job, compile_lock_timeout());
  if (lock.held() && stored_meanwhile(job)) return;
  bridge::CompileResult compiled = compile_one(job);
  finish(job, compiled);
}

// One job done, compiled or not: the progress bar moves on, when there is one.
void advance(ProgressBar* bar, const Job& job) {
  if (bar != nullptr) bar->advance(job.fn->signature.function);
}

void compile_batch(const std::vector<Job*>& jobs, int workers, ProgressBar* bar,
                   std::vector<std::exception_ptr>* errors);

// Compiles the jobs that were nowhere, each once across the processes sharing the index: first
// those whose lock this process takes at once, holding their locks until they are stored (no
// waiting meanwhile, so two processes cannot wait on each other); then, one at a time, those
// another process was compiling, each taken from the index when it stored it. Errors are
// collected, one per failed job.
void compile_jobs(const std::vector<Job*>& jobs, int workers, ProgressBar* bar,
                  std::vector<std::exception_ptr>* errors) {
  std::vector<Job*> mine, theirs;
  std::vector<CompileLock> held;
  for (Job* job : jobs) {
    CompileLock lock = lock_compile(*job, std::chrono::milliseconds(0));
    if (lock.state() == CompileLock::State::Busy) {
      theirs.push_back(job);
    } else if (lock.held() && stored_meanwhile(*job)) {
      advance(bar, *job);
    } else {
      mine.push_back(job);
      held.push_back(std::move(lock));
    }
  }
  compile_batch(mine, workers, bar, errors);
  held.clear();
  for (Job* job : theirs) {
    CompileLock lock = lock_compile(*job, compile_lock_timeout());
    if (lock.held() && stored_meanwhile(*job)) {
      advance(bar, *job);
    } else {
      compile_batch({job}, 1, bar, errors);
    }
  }
}

// Compiles `jobs`: one after another in this process with one worker, else on the worker pool,
// `workers` at once. Each compiled kernel is stored in the index and inserted into its
// function's table. Errors are collected, one per failed job, in job order for one worker and
// completion order for several.
void compile_batch(const std::vector<Job*>& jobs, int workers, ProgressBar* bar,
                   std::vector<std::exception_ptr>* errors) {
  // In this process, one after another.
  auto compile_here_each = [&](const std::vector<Job*>& here) {
    for (Job* job : here) {
      try {
        bridge::CompileResult compiled = compile_here(*job->fn, job->spec, job->kernel_key, job->options, job->target);
        finish(*job, compiled);
      } catch (...) {
        errors->push_back(std::current_exception());
      }
      advance(bar, *job);
    }
  };
  if (jobs.empty()) return;
  if (workers <= 1) {
    compile_here_each(jobs);
    return;
  }
  if (offline()) fail_missing(*jobs.front()->fn, jobs.front()->kernel_key, CannotCompile::Offline);
  prestart_pool(*jobs.front()->fn);
  std::vector<Job*> runnable;
  for (Job* job : jobs) {
    if (!job->fn->source_sha256.empty()) {
      runnable.push_back(job);
      continue;
    }
    try {
      fail_missing(*job->fn, job->kernel_key, CannotCompile::NoSource);
    } catch (...) {
      errors->push_back(std::current_exception());
    }
    advance(bar, *job);
  }
  // Functions whose module the host handed over compile here, one after another, before the rest
  // go to the pool.
  std::vector<Job*> local;
  runnable.erase(std::remove_if(runnable.begin(), runnable.end(),
                                [&](Job* job) {
                                  if (workers_may_load(*job->fn)) return false;
                                  local.push_back(job);
                                  return true;
                                }),
                 runnable.end());
  compile_here_each(local);
  if (runnable.empty()) return;
  std::vector<bridge::CompileJob> work;
  for (const Job* job : runnable) work.push_back(pool_job(*job));
  try {
    bridge::compile_many(work, workers, [&](size_t i, bridge::CompileResult* compiled, std::exception_ptr error) {
      Job& job = *runnable[i];
      if (compiled != nullptr) {
        job.fn->compiles.fetch_add(1, std::memory_order_relaxed);
        finish(job, *compiled);
      } else {
        errors->push_back(error);
      }
      advance(bar, job);
    });
  } catch (const PythonError& e) {
    fail_missing(*runnable.front()->fn, runnable.front()->kernel_key, CannotCompile::NoPython, e.what());
  }
}

// The spec and kernel key of a job whose key and arguments are set.
void describe_job(Job& job, const LaunchConfig& config) {
  job.spec = job.fn->describe(job.key, job.args, config, job.target);
  job.kernel_key = make_kernel_key(job.spec, job.options, job.target);
}

std::atomic<bool> g_interpreter_busy{false};  // InterpreterSlot

}  // namespace

bool InterpreterSlot::try_claim() noexcept { return !g_interpreter_busy.exchange(true); }
void InterpreterSlot::release() noexcept { g_interpreter_busy.store(false); }

Target Resolver::default_target() {
  if (auto t = explicit_target()) return *t;
  if (cuda::driver_available()) {
    try {
      return cuda::device_target(*cuda::current_device().info);
    } catch (const NoDeviceError&) {
    }
  }
  return Target{};
}

const KernelEntry* Resolver::resolve(FunctionState& fn, const SpecKey& key, const ArgValue* args,
                                     const LaunchConfig& config, const Target& target, CUstream capture_stream,
                                     bool check_capture) {
  fn.misses.fetch_add(1, std::memory_order_relaxed);
  std::string pending_key(reinterpret_cast<const char*>(key.words), key.num_words * sizeof(uint64_t));
  for (const auto& [index, text] : string_constexprs(key, args)) {
    pending_key += '\0';
    pending_key += text;
  }
  std::shared_ptr<FunctionState::Pending> mine;
  std::shared_ptr<FunctionState::Pending> theirs;
  {
    std::lock_guard<std::mutex> lock(fn.compile_mutex);
    if (const KernelEntry* e = fn.table.find(key, args)) return e;
    auto it = fn.pending.find(pending_key);
    if (it != fn.pending.end()) {
      theirs = it->second;
    } else {
      mine = std::make_shared<FunctionState::Pending>();
      fn.pending.emplace(pending_key, mine);
    }
  }
  if (theirs) {
    // Another thread resolves this key: share its result. It may need the GIL, which this
    // thread may hold when the host program is Python.
    bridge::ScopedGilRelease release;
    return theirs->future.get();
  }

  auto forget_pending = [&] {
    std::lock_guard<std::mutex> lock(fn.compile_mutex);
    fn.pending.erase(pending_key);
  };
  try {
    Job job;
    job.fn = &fn;
    job.key = key;
    job.args = args;
    job.options = config.options;
    job.target = target;
    describe_job(job, config);
    if (find_ready(job) == Found::Nowhere) {
      if (check_capture && cuda::stream_is_capturing(capture_stream)) {
        fail_missing(fn, job.kernel_key, CannotCompile::Capturing);
      }
      compile_once(job);
    }
    forget_pending();
    mine->promise.set_value(job.entry);
    return job.entry;
  } catch (...) {
    // Nothing was inserted: the next call tries again. Waiters get the same error.
    forget_pending();
    mine->promise.set_exception(std::current_exception());
    throw;
  }
}

KernelInfo Resolver::compile_request(FunctionState& fn, const CompileRequest& request) {
  LaunchConfig config;
  config.num_warps = request.num_warps;
  config.num_stages = request.num_stages;
  config.num_ctas = request.num_ctas;
  fn.check_config(config);
  const Target target = request.target ? *request.target : default_target();
  Specialization spec = parse_signature(fn.signature, request.signature);
  for (size_t i = 0; i < spec.params.size(); ++i) {
    // HIP's 'S' (":S") is no flag of a CUDA kernel: Triton's CUDA binder never keys it.
    if (spec.params[i].pointer_range && target.backend != "hip") {
      const std::string& name = fn.signature.params[i].name;
      throw ArgumentError(fn.signature.function + ": '" + request.signature + "' marks parameter '" + name +
                              "' with ':S', HIP's flag of a pointer in a buffer of at most 2**31-1 bytes; " +
                              target.str() + " is no HIP target: drop the ':S'",
                          fn.signature.function, name);
    }
  }
  spec.num_warps = request.num_warps;
  spec.num_stages = target_num_stages(request.num_stages, target);
  spec.num_ctas = request.num_ctas;
  spec.target = target.str();
  const CompileOptions* options = request.options.empty() ? nullptr : &request.options;
  const KernelKey key = make_kernel_key(spec, options, target);
  if (offline()) {
    // Nothing compiles offline, so the kernel a loaded pack or the index holds is the answer; only
    // where neither has it is the request a miss.
    load_environment_packs();
    Found found = Found::Nowhere;
    if (std::optional<CompiledKernel> kernel = find_stored(fn, key, &found)) return kernel->public_info();
    fail_missing(fn, key, CannotCompile::Offline);
  }
  bridge::CompileResult compiled = compile_here(fn, spec, key, options, target);
  store_in_index(fn, key, compiled);
  return compiled.kernel.public_info();
}

namespace {

// A request of a batch, with the arguments that produce its key.
struct BatchItem {
  const TritonJitFunction* function = nullptr;
  SyntheticArgs args;
  ArgStorage storage;  // the arguments with defaults
  Job job;
};

}  // namespace

PrepareReport Resolver::resolve_batch(const std::vector<KernelRequest>& requests, const PrepareOptions& options,
                                      const char* label, std::vector<ResolvedKernel>* out) {
  const auto start = std::chrono::steady_clock::now();
  load_environment_packs();
  PrepareReport report;
  std::vector<std::unique_ptr<BatchItem>> items;
  std::vector<size_t> first_of(requests.size());  // the item that serves each request
  std::map<std::pair<const void*, std::string>, size_t> seen;
  std::vector<Job*> to_compile;
  for (size_t i = 0; i < requests.size(); ++i) {
    const KernelRequest& r = requests[i];
    if (r.function == nullptr) {
      throw ArgumentError("prepare: request #" + std::to_string(i) + " names no function", "", "");
    }
    auto item = std::make_unique<BatchItem>();
    FunctionState& fn = state(*r.function);
    item->function = r.function;
    Job& job = item->job;
    job.fn = &fn;
    job.options = r.options.empty() ? nullptr : &r.options;
    job.target = r.target ? *r.target : default_target();  // a launch's target
    // The key a launch with these arguments computes, checked against the request.
    const Specialization parsed = parse_signature(fn.signature, r.signature);
    item->args = synthesize_args(fn.signature, parsed);
    LaunchConfig config;
    config.num_warps = r.num_warps;
    config.num_stages = r.num_stages;
    config.num_ctas = r.num_ctas;
    config.options = job.options;
    job.args = fn.bind_for<false>(config, ArgSpan{item->args.values.data(), item->args.values.size()}, job.target,
                                  &job.key, item->storage.data(), nullptr);
    describe_job(job, config);
    if (job.spec.signature() != parsed.signature()) {
      throw ArgumentError(fn.signature.function + ": no call specializes as '" + r.signature +
                              "'; the nearest a call reaches is '" + job.spec.signature() +
                              "' (check do_not_specialize, annotations and which integers are 1)",
                          fn.signature.function, "");
    }
    auto [it, fresh] = seen.emplace(std::make_pair(static_cast<const void*>(&fn), job.kernel_key.text()), items.size());
    first_of[i] = it->second;
    if (!fresh) continue;
    ++report.requested;
    switch (find_ready(job)) {
      case Found::Memory: ++report.in_memory; break;
      case Found::Pack: ++report.from_packs; break;
      case Found::Index: ++report.from_index; break;
      case Found::Nowhere:
        check_compilable(fn, job.options, job.target);  // every request, before the first compile
        to_compile.push_back(&job);
        break;
    }
    items.push_back(std::move(item));
  }

  std::vector<std::exception_ptr> errors;
  if (!to_compile.empty()) {
    // A batch takes up to one worker per kernel, at most the pool's limit or the jobs asked for.
    const int jobs = options.jobs > 0 ? options.jobs : compile_workers();
    report.workers = std::max(1, std::min<int>(jobs, static_cast<int>(to_compile.size())));
    ProgressBar bar(label, to_compile.size(), options.progress, options.progress_fd);
    if (to_compile.size() == 1 && options.jobs != 1) {
      // One kernel is a miss like a launch's: in this process unless it is busy compiling.
      Job& job = *to_compile.front();
      try {
        compile_once(job);
      } catch (...) {
        errors.push_back(std::current_exception());
      }
      advance(&bar, job);
    } else {
      compile_jobs(to_compile, report.workers, &bar, &errors);
    }
    for (const Job* job : to_compile) {
      report.compiled += job->entry != nullptr && !job->stored_meanwhile;
      report.from_index += job->stored_meanwhile;
    }
  }

  if (options.load && cuda::driver_available()) {
    // Loading now keeps module loads out of later launches (and out of graph capture).
    try {
      const cuda::CurrentDevice dev = cuda::current_device();
      for (const auto& item : items) {
        const Job& job = item->job;
        if (job.entry != nullptr && job.target == cuda::device_target(*dev.info)) {
          job.entry->function_for(dev.context, *dev.info, job.fn->loads);
        }
      }
    } catch (const NoDeviceError&) {
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (log_enabled(LogLevel::Info)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%s: %zu kernels (%zu in the table, %zu from packs, %zu from the index, %zu compiled on %d workers) "
                  "in %.2f s",
                  label, report.requested, report.in_memory, report.from_packs, report.from_index, report.compiled,
                  report.workers, report.seconds);
    log_line(buf);
  }
  if (!errors.empty()) {
    const std::string more = errors.size() > 1
                                 ? " (" + std::to_string(errors.size() - 1) + " more of the " +
                                       std::to_string(to_compile.size()) + " compiles failed too; the others are ready)"
                                 : "";
    try {
      std::rethrow_exception(errors.front());
    } catch (const CompileError& e) {
      throw CompileError(e.what() + more, e.function(), e.signature(), e.key(), e.file(), e.line(), e.python_type(),
                         e.traceback());
    }
  }
  if (out != nullptr) {
    out->clear();
    for (size_t i = 0; i < requests.size(); ++i) {
      const BatchItem& served = *items[first_of[i]];
      out->push_back(
          ResolvedKernel{served.function, served.job.entry, served.job.kernel_key, served.job.fn->pack_sha256});
    }
  }
  return report;
}

}  // namespace triton_jit::detail
