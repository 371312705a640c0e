// A process of its own for the kernel-store tests (store_test.cpp): gets FILE:FUNCTION, launches
// its (x, y, out, n, BLOCK[, DTYPE]) kernel once on the fake driver and prints what it took to do so:
//   compiles=0 index_hits=1 pack_hits=0 python_used=0 cubin_sha256=... kernel=... triton=3.6.0
// or `error=TYPE: message` (exit 3). Options: --block N (default 256), --pack FILE (load_pack),
// --function NAME (instead of FUNCTION), --module NAME (get_module(NAME, FUNCTION); FILE unused), --dtype tl:NAME or
// torch:NAME (a sixth argument, a dtype),
// --versions 1 (also print params=N, the parameters of the launch, scratch=N, the kernel's scratch
// pointers, and process_triton=VERSION, the Triton this process's Python has: starts Python),
// --start-after FILE (wait for FILE to exist before the first miss: processes that miss at once),
// --prepare JOBS (first prepare() the kernels of BLOCK 64, 128, 256 and 512 with that many jobs).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "fake_driver.h"
#include "store/sha256.h"
#include "support/launch_metadata.h"
#include "triton_jit/triton_jit.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: store_probe FILE FUNCTION [--block N] [--pack FILE]\n";
    return 2;
  }
  fake::install();  // first: load_pack checks packs against the (fake, sm_90) device
  int block = 256;
  std::string function = argv[2];
  std::string module;                       // --module: get_module(module, FUNCTION), FILE unused
  std::vector<triton_jit::ArgValue> extra;  // the dtype, if any
  bool versions = false;
  std::string start_after;
  int prepare_jobs = -1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--start-after") == 0) start_after = argv[i + 1];
    if (std::strcmp(argv[i], "--prepare") == 0) prepare_jobs = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--block") == 0) block = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--versions") == 0) versions = std::strcmp(argv[i + 1], "1") == 0;
    if (std::strcmp(argv[i], "--function") == 0) function = argv[i + 1];
    if (std::strcmp(argv[i], "--module") == 0) module = argv[i + 1];
    if (std::strcmp(argv[i], "--dtype") == 0) {
      const std::string spec = argv[i + 1];
      const bool torch = spec.rfind("torch:", 0) == 0;
      triton_jit::DType d;
      if (!triton_jit::parse_dtype(spec.substr(spec.find(':') + 1), &d)) {
        std::cerr << "store_probe: bad --dtype " << spec << "\n";
        return 2;
      }
      extra.push_back(torch ? triton_jit::ArgValue::torch_dtype(d) : triton_jit::ArgValue::triton_dtype(d));
    }
    if (std::strcmp(argv[i], "--pack") == 0) {
      try {
        triton_jit::load_pack(argv[i + 1]);
      } catch (const triton_jit::Error& e) {
        std::cout << "error=PackError: " << e.what() << std::endl;
        return 3;
      }
    }
  }
  try {
    auto& fn = module.empty() ? triton_jit::TritonJitFunction::get(argv[1], function)
                              : triton_jit::TritonJitFunction::get_module(module, function);
    const triton_jit::LaunchConfig config{triton_jit::Grid(4)};
    const float* x = reinterpret_cast<const float*>(0x10000);
    const float* y = reinterpret_cast<const float*>(0x20000);
    float* out = reinterpret_cast<float*>(0x30000);
    std::vector<triton_jit::ArgValue> args = {triton_jit::to_arg(x), triton_jit::to_arg(y), triton_jit::to_arg(out),
                                              triton_jit::to_arg(1000), triton_jit::to_arg(block)};
    args.insert(args.end(), extra.begin(), extra.end());
    const triton_jit::ArgSpan span{args.data(), args.size()};
    if (!start_after.empty()) {  // ready (Python started, the signature read): wait for the others
      std::ofstream(start_after + ".ready." + std::to_string(::getpid())) << "ready";
      for (int i = 0; !std::filesystem::exists(start_after) && i < 120000; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (prepare_jobs >= 0) {
      std::vector<triton_jit::KernelRequest> requests;
      for (int b : {64, 128, 256, 512}) requests.push_back(triton_jit::request(fn, config, x, y, out, 1000, b));
      triton_jit::PrepareOptions options;
      options.jobs = prepare_jobs;
      options.progress = triton_jit::Progress::Never;
      const triton_jit::PrepareReport r = triton_jit::prepare(requests, options);
      std::cout << "prepare_compiled=" << r.compiled << " prepare_from_index=" << r.from_index << std::endl;
    }
    fn.launch(config, span);
    const triton_jit::KernelInfo& info = fn.compile(config, span);
    const triton_jit::Stats s = fn.stats();
    std::cout << "compiles=" << s.compiles << " index_hits=" << s.index_hits << " pack_hits=" << s.pack_hits
              << " launches=" << fake::state().launches.size() << " python_used=" << triton_jit::python_used()
              << " cubin_sha256=" << triton_jit::detail::sha256_hex(info.cubin) << " metadata_sha256="
              << triton_jit::detail::sha256_hex(triton_jit::test::launch_metadata(info).metadata_json)
              << " kernel=" << info.name << " triton=" << info.triton_version << std::endl;
    if (versions) {
      std::cout << "params=" << fake::state().launches.at(0).params.size()
                << " scratch=" << triton_jit::test::launch_metadata(info).scratch_params.size()
                << " process_triton=" << triton_jit::triton_version() << std::endl;
    }
  } catch (const triton_jit::MissingKernelError& e) {
    std::cout << "error=MissingKernelError: " << e.what() << "\nmanifest_line=" << e.manifest_line()
              << "\npython_used=" << triton_jit::python_used() << std::endl;
    return 3;
  } catch (const std::exception& e) {
    std::cout << "error=" << typeid(e).name() << ": " << e.what() << "\npython_used=" << triton_jit::python_used()
              << std::endl;
    return 3;
  }
  return 0;
}
