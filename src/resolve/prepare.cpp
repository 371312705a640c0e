// prepare(): every requested kernel in memory before it is launched, compiling the missing ones
// in parallel Python processes.
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "function/jit_function_impl.h"
#include "resolve/prepare_internal.h"
#include "resolve/progress_bar.h"
#include "key/signature_parser.h"
#include "store/pack_registry.h"
#include "key/synthetic_args.h"

namespace triton_jit {
namespace detail {
namespace {

struct Item {
  const TritonJitFunction* function = nullptr;
  TritonJitFunction::Impl* impl = nullptr;
  CompileOptions options;
  Target target;
  SyntheticArgs args;
  SpecKey key;
  Specialization spec;
  KernelKey kernel_key;
  const KernelEntry* entry = nullptr;
};

// Builds the key a launch with these arguments computes, and checks that the launch would
// indeed specialize as requested.
void resolve(const KernelRequest& r, size_t index, Item* item) {
  if (r.function == nullptr) {
    throw ArgumentError("prepare: request #" + std::to_string(index) + " names no function", "", "");
  }
  TritonJitFunction::Impl& impl = FunctionAccess::impl(*r.function);
  item->function = r.function;
  item->impl = &impl;
  item->options = r.options;
  item->target = r.target ? *r.target : impl.compile_target();  // a launch's target
  Specialization parsed = parse_signature(impl.signature, r.signature);
  item->args = synthesize_args(impl.signature, parsed);
  LaunchConfig config;
  config.num_warps = r.num_warps;
  config.num_stages = r.num_stages;
  config.num_ctas = r.num_ctas;
  config.options = item->options.empty() ? nullptr : &item->options;
  ArgStorage storage;
  const ArgValue* full = impl.bind<false>(config, ArgSpan{item->args.values.data(), item->args.values.size()},
                                          item->target.arch, item->target.warp_size, &item->key, storage.data(),
                                          nullptr);
  item->spec = impl.describe(item->key, full, config, item->target);
  if (item->spec.signature() != parsed.signature()) {
    throw ArgumentError(impl.signature.function + ": no call specializes as '" + r.signature +
                            "'; the nearest a call reaches is '" + item->spec.signature() +
                            "' (check do_not_specialize, annotations and which integers are 1)",
                        impl.signature.function, "");
  }
  item->kernel_key = impl.kernel_key(item->spec, config.options, item->target);
}

const CompileOptions* options_of(const Item& item) { return item.options.empty() ? nullptr : &item.options; }

int default_jobs() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace

PrepareReport prepare_kernels(const std::vector<KernelRequest>& requests, const PrepareOptions& options,
                              const char* label, std::vector<PreparedKernel>* out) {
  const auto start = std::chrono::steady_clock::now();
  PackRegistry::instance().load_environment_packs();
  PrepareReport report;
  std::vector<Item> items(requests.size());
  std::vector<size_t> first_of(requests.size());  // the item that serves each request
  std::map<std::pair<const void*, std::string>, size_t> seen;
  std::vector<size_t> to_compile;
  for (size_t i = 0; i < requests.size(); ++i) {
    Item& item = items[i];
    resolve(requests[i], i, &item);
    auto [it, fresh] = seen.emplace(std::make_pair(static_cast<const void*>(item.impl), item.kernel_key.text()), i);
    first_of[i] = it->second;
    if (!fresh) continue;
    ++report.requested;
    const ArgValue* args = item.args.values.data();
    if ((item.entry = item.impl->table.find(item.key, args)) != nullptr) {
      ++report.in_memory;
    } else if (bool from_pack = false; auto info = item.impl->find_stored(item.kernel_key, &from_pack)) {
      item.entry = item.impl->insert(item.key, args, std::move(*info));
      ++(from_pack ? report.from_packs : report.from_index);
    } else {
      to_compile.push_back(i);
    }
  }

  std::vector<std::exception_ptr> errors;
  if (!to_compile.empty()) {
    const int jobs = options.jobs > 0 ? options.jobs : default_jobs();
    report.workers = std::min<int>(jobs, static_cast<int>(to_compile.size()));
    ProgressBar bar(label, to_compile.size(), options.progress);
    auto finish = [&](Item& item, bridge::CompiledKernel& compiled) {
      item.impl->compiles.fetch_add(1, std::memory_order_relaxed);
      item.impl->remember(item.kernel_key, compiled);
      item.entry = item.impl->insert(item.key, item.args.values.data(), std::move(compiled.info));
      ++report.compiled;
    };
    if (report.workers == 1) {
      for (size_t i : to_compile) {
        Item& item = items[i];
        try {
          bridge::CompiledKernel compiled =
              item.impl->compile_now(item.spec, item.kernel_key, options_of(item), item.target);
          finish(item, compiled);
        } catch (...) {
          errors.push_back(std::current_exception());
        }
        bar.advance(item.impl->signature.function);
      }
    } else {
      Item& first = items[to_compile.front()];
      if (offline()) first.impl->fail_missing(first.kernel_key, "offline mode is on, so nothing compiles");
      std::vector<bridge::CompileJob> jobs_list;
      for (size_t i : to_compile) {
        bridge::CompileJob job;
        job.signature = &items[i].impl->signature;
        job.spec = items[i].spec;
        job.options = options_of(items[i]);
        job.target = items[i].target;
        jobs_list.push_back(std::move(job));
      }
      try {
        bridge::compile_many(jobs_list, report.workers,
                             [&](size_t j, bridge::CompiledKernel* compiled, std::exception_ptr error) {
                               Item& item = items[to_compile[j]];
                               if (compiled != nullptr) {
                                 finish(item, *compiled);
                               } else {
                                 errors.push_back(error);
                               }
                               bar.advance(item.impl->signature.function);
                             });
      } catch (const PythonError& e) {
        first.impl->fail_missing(first.kernel_key, std::string("it cannot be compiled here: ") + e.what());
      }
    }
  }

  if (options.load && cuda::driver_available()) {
    // Loading now keeps module loads out of later launches (and out of graph capture).
    try {
      const cuda::CurrentDevice dev = cuda::current_device();
      for (Item& item : items) {
        if (item.entry != nullptr && item.target.arch == dev.info->arch) {
          item.entry->function_for(dev.context, *dev.info, item.impl->loads);
        }
      }
    } catch (const NoDeviceError&) {
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (log_enabled(LogLevel::Info)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%s: %zu kernels (%zu in memory, %zu from packs, %zu from the cache, %zu compiled on %d workers) "
                  "in %.2f s",
                  label, report.requested, report.in_memory, report.from_packs, report.from_index, report.compiled,
                  report.workers, report.seconds);
    log_line(buf);
  }
  if (!errors.empty()) {
    const std::string more = errors.size() > 1 ? " (" + std::to_string(errors.size() - 1) + " more of the " +
                                                     std::to_string(to_compile.size()) +
                                                     " compiles failed too; the others are ready)"
                                               : "";
    try {
      std::rethrow_exception(errors.front());
    } catch (const CompileError& e) {
      throw CompileError(e.what() + more, e.function(), e.key(), e.file(), e.line(), e.python_type(), e.traceback());
    }
  }
  if (out != nullptr) {
    out->clear();
    for (size_t i = 0; i < items.size(); ++i) {
      const Item& served = items[first_of[i]];
      out->push_back(PreparedKernel{served.function, served.entry, served.kernel_key});
    }
  }
  return report;
}

}  // namespace detail

PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options) {
  return detail::prepare_kernels(requests, options, "prepare", nullptr);
}

}  // namespace triton_jit
