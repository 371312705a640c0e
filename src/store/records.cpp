#include "store/records.h"

#include <cstdint>
#include <string>

#include "key/repr.h"
#include "store/files.h"
#include "store/sha256.h"

namespace triton_jit::detail {

std::optional<FileDependency> describe_file(const std::string& path, bool required) {
  auto stamp = stat_file(path);
  if (!stamp) return std::nullopt;
  auto bytes = read_file(path);
  if (!bytes) return std::nullopt;
  FileDependency d;
  d.path = path;
  d.size = stamp->size;
  d.mtime_ns = stamp->mtime_ns;
  d.sha256 = sha256_hex(*bytes);
  d.required = required;
  return d;
}

DependencyState check_dependency(const FileDependency& dep) {
  auto stamp = stat_file(dep.path);
  if (!stamp) return DependencyState::Missing;
  if (stamp->size == dep.size && stamp->mtime_ns == dep.mtime_ns) return DependencyState::Unchanged;
  auto bytes = read_file(dep.path);
  if (!bytes) return DependencyState::Missing;
  return sha256_hex(*bytes) == dep.sha256 ? DependencyState::Unchanged : DependencyState::Changed;
}

std::string dependency_problem(const FileDependency& dep, DependencyState state) {
  if (state == DependencyState::Changed) return dep.path + " changed";
  if (state == DependencyState::Missing && dep.required) return dep.path + " is gone or cannot be read";
  return {};
}

std::string stale_reason(const std::vector<FileDependency>& deps) {
  for (const FileDependency& d : deps) {
    if (std::string why = dependency_problem(d, check_dependency(d)); !why.empty()) return why;
  }
  return {};
}

void write_dependencies(BinaryWriter& w, const std::vector<FileDependency>& deps) {
  w.u32(static_cast<uint32_t>(deps.size()));
  for (const FileDependency& d : deps) {
    w.str(d.path);
    w.u64(d.size);
    w.i64(d.mtime_ns);
    w.str(d.sha256);
    w.u8(d.required ? 1 : 0);
  }
}

std::vector<FileDependency> read_dependencies(BinaryReader& r) {
  std::vector<FileDependency> deps;
  // Each at least a path's length, size, mtime, hash length and flag.
  const uint32_t n = r.count("dependency", 1u << 16, 4 + 8 + 8 + 4 + 1);
  for (uint32_t i = 0; i < n; ++i) {
    FileDependency d;
    d.path = r.str();
    d.size = r.u64();
    d.mtime_ns = r.i64();
    d.sha256 = r.str();
    d.required = r.u8() != 0;
    deps.push_back(std::move(d));
  }
  return deps;
}

namespace {

// A number read from a file outside what the runtime writes is damage, reported as such: it
// would otherwise size an allocation, a launch or a time conversion.
void check_range(const char* what, int64_t value, int64_t low, int64_t high) {
  if (value < low || value > high) {
    throw FormatError{std::string(what) + " " + std::to_string(value) + " is out of range (" + std::to_string(low) +
                      " to " + std::to_string(high) + ")"};
  }
}

void check_target(const char* what, const Target& t) {
  if (t.backend != "cuda" && t.backend != "hip") {
    throw FormatError{std::string(what) + " names an unknown backend (" + std::to_string(t.backend.size()) + " bytes)"};
  }
  check_range(what, t.arch, 0, 0xffff);
  check_range("warp size", t.warp_size, 1, 0xff);
}

// The latest time a record may carry: the end of year 9999, past which calendars (and strftime)
// have no four-digit year.
constexpr int64_t kLatestUnixTime = 253402300799;

void check_key(const KernelKey& k) {
  // The ranges a launch accepts (TritonJitFunction::check_config).
  check_range("num_warps", k.num_warps, 1, 64);
  check_range("num_stages", k.num_stages, 0, 255);
  check_range("num_ctas", k.num_ctas, 1, 16);
  check_target("target architecture", k.target);
}

void check_kernel(const CompiledKernel& k) {
  check_target("kernel target architecture", k.info.target);
  check_range("kernel num_warps", k.info.num_warps, 1, 1024);
  check_range("kernel num_ctas", k.info.num_ctas, 1, 1024);
  check_range("shared memory size", k.info.shared, 0, INT32_MAX);
  for (int c : k.launch.cluster_dims) check_range("cluster dimension", c, 0, INT32_MAX);
  check_range("global scratch size", k.launch.global_scratch_size, 0, INT64_MAX);
  check_range("global scratch alignment", k.launch.global_scratch_align, 0, INT32_MAX);
  check_range("profile scratch size", k.launch.profile_scratch_size, 0, INT64_MAX);
  check_range("profile scratch alignment", k.launch.profile_scratch_align, 0, INT32_MAX);
}

void write_key(BinaryWriter& w, const KernelKey& k) {
  w.str(k.signature);
  w.u32(static_cast<uint32_t>(k.num_warps));
  w.u32(static_cast<uint32_t>(k.num_stages));
  w.u32(static_cast<uint32_t>(k.num_ctas));
  w.str(k.options);
  w.str(k.target.backend);
  w.u32(static_cast<uint32_t>(k.target.arch));
  w.u32(static_cast<uint32_t>(k.target.warp_size));
}

KernelKey read_key(BinaryReader& r) {
  KernelKey k;
  k.signature = r.str();
  k.num_warps = r.i32();
  k.num_stages = r.i32();
  k.num_ctas = r.i32();
  k.options = r.str();
  k.target.backend = r.str();
  k.target.arch = r.i32();
  k.target.warp_size = r.i32();
  return k;
}

// Field encodings of TRITON_JIT_KERNEL_FIELDS, one pair per kind.
void put(BinaryWriter& w, const std::string& v) { w.str(v); }
void put(BinaryWriter& w, int v) { w.u32(static_cast<uint32_t>(v)); }
void put(BinaryWriter& w, int64_t v) { w.i64(v); }
void put(BinaryWriter& w, bool v) { w.u8(v); }
void put(BinaryWriter& w, const int (&v)[3]) {
  for (int c : v) w.u32(static_cast<uint32_t>(c));
}
void put(BinaryWriter& w, const std::vector<std::string>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const std::string& s : v) w.str(s);
}
void put(BinaryWriter& w, const Target& t) {
  w.str(t.backend);
  w.u32(static_cast<uint32_t>(t.arch));
  w.u32(static_cast<uint32_t>(t.warp_size));
}
void put(BinaryWriter& w, const std::vector<DescriptorMeta>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const DescriptorMeta& m : v) {
    w.u32(static_cast<uint32_t>(m.swizzle));
    w.u32(static_cast<uint32_t>(m.elem_size));
    w.u32(static_cast<uint32_t>(m.elem_type));
    w.u32(static_cast<uint32_t>(m.block_size.size()));
    for (int b : m.block_size) w.u32(static_cast<uint32_t>(b));
    w.u8(m.fp4_padded);
  }
}
void get(BinaryReader& r, std::string& v) { v = r.str(); }
void get(BinaryReader& r, int& v) { v = r.i32(); }
void get(BinaryReader& r, int64_t& v) { v = r.i64(); }
void get(BinaryReader& r, bool& v) { v = r.u8() != 0; }
void get(BinaryReader& r, int (&v)[3]) {
  for (int& c : v) c = r.i32();
}
void get(BinaryReader& r, std::vector<std::string>& v) {
  const uint32_t n = r.count("string list", 1u << 16, 4);
  for (uint32_t i = 0; i < n; ++i) v.push_back(r.str());
}
void get(BinaryReader& r, std::vector<DescriptorMeta>& v) {
  const uint32_t n = r.count("tensor descriptor", 1u << 16, 17);
  for (uint32_t i = 0; i < n; ++i) {
    DescriptorMeta m;
    m.swizzle = r.i32();
    m.elem_size = r.i32();
    m.elem_type = r.i32();
    const uint32_t rank = r.u32();
    if (rank > 5) throw FormatError{"a tensor descriptor of rank " + std::to_string(rank)};
    for (uint32_t d = 0; d < rank; ++d) m.block_size.push_back(r.i32());
    m.fp4_padded = r.u8() != 0;
    v.push_back(std::move(m));
  }
}
void get(BinaryReader& r, Target& t) {
  t.backend = r.str();
  t.arch = r.i32();
  t.warp_size = r.i32();
}

void write_kernel(BinaryWriter& w, const CompiledKernel& k) {
#define TRITON_JIT_PUT_FIELD(P, field, kind) put(w, TRITON_JIT_KERNEL_PART(k, P).field);
  TRITON_JIT_KERNEL_FIELDS(TRITON_JIT_PUT_FIELD)
#undef TRITON_JIT_PUT_FIELD
}

CompiledKernel read_kernel(BinaryReader& r) {
  CompiledKernel k;
#define TRITON_JIT_GET_FIELD(P, field, kind) get(r, TRITON_JIT_KERNEL_PART(k, P).field);
  TRITON_JIT_KERNEL_FIELDS(TRITON_JIT_GET_FIELD)
#undef TRITON_JIT_GET_FIELD
  return k;
}

}  // namespace

void write_kernel_record(BinaryWriter& w, const KernelRecord& r) {
  w.str(r.function_path);
  w.str(r.function_name);
  write_key(w, r.key);
  write_dependencies(w, r.dependencies);
  w.i64(r.created_unix);
  write_kernel(w, r.kernel);
}

KernelRecord read_kernel_record(BinaryReader& r) {
  KernelRecord k;
  k.function_path = r.str();
  k.function_name = r.str();
  k.key = read_key(r);
  check_key(k.key);
  k.dependencies = read_dependencies(r);
  k.created_unix = r.i64();
  check_range("creation time", k.created_unix, 0, kLatestUnixTime);
  k.kernel = read_kernel(r);
  check_kernel(k.kernel);
  return k;
}

void write_value(BinaryWriter& w, const DefaultValue& d) {
  w.u8(static_cast<uint8_t>(d.kind));
  w.i64(d.int_value);
  w.u64(d.uint_value);
  w.f64(d.float_value);
  w.u8(d.bool_value);
  w.str(d.string_value);
  w.str(d.repr);
  w.u8(d.representable);
}

DefaultValue read_value(BinaryReader& r) {
  DefaultValue d;
  const uint8_t kind = r.u8();
  d.kind = static_cast<ArgValue::Kind>(kind);
  d.int_value = r.i64();
  d.uint_value = r.u64();
  d.float_value = r.f64();
  d.bool_value = r.u8() != 0;
  d.string_value = r.str();
  d.repr = r.str();
  d.representable = r.u8() != 0;
  // A dtype is read from its repr, whatever its kind byte: records written before dtypes had a
  // C++ form hold it as an unrepresentable None with that repr.
  if (parse_python_dtype(d.repr, &d.dtype_value, &d.torch_dtype)) {
    d.kind = ArgValue::Kind::DType;
    d.representable = true;
  } else if (kind > static_cast<uint8_t>(ArgValue::Kind::String)) {
    throw FormatError{"bad value kind"};
  }
  return d;
}

namespace {

// A count read from a record, bounded so a damaged file is an error rather than a huge allocation:
// at most `max`, and no more items than the bytes left could hold (each takes at least one).
uint32_t read_count(BinaryReader& r, uint32_t max = 1u << 16) { return r.count("list", max); }

void write_ints(BinaryWriter& w, const std::vector<int>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (int i : v) w.u32(static_cast<uint32_t>(i));
}

// Parameter indices, each checked against the function's parameter count.
std::vector<int> read_params(BinaryReader& r, int num_params) {
  std::vector<int> v(read_count(r));
  for (int& i : v) {
    i = r.i32();
    if (i < 0 || i >= num_params) throw FormatError{"bad parameter index"};
  }
  return v;
}

void write_options(BinaryWriter& w, const CompileOptions& options) {
  w.u32(static_cast<uint32_t>(options.items().size()));
  for (const auto& [name, value] : options.items()) {
    w.str(name);
    w.u8(static_cast<uint8_t>(value.index()));
    if (auto* i = std::get_if<int64_t>(&value)) w.i64(*i);
    if (auto* b = std::get_if<bool>(&value)) w.u8(*b);
    if (auto* f = std::get_if<double>(&value)) w.f64(*f);
    if (auto* t = std::get_if<std::string>(&value)) w.str(*t);
  }
}

CompileOptions read_options(BinaryReader& r) {
  CompileOptions options;
  const uint32_t n = read_count(r);
  for (uint32_t i = 0; i < n; ++i) {
    std::string name = r.str();
    switch (r.u8()) {
      case 0: options.set(std::move(name), r.i64()); break;
      case 1: options.set(std::move(name), r.u8() != 0); break;
      case 2: options.set(std::move(name), r.f64()); break;
      case 3: options.set(std::move(name), r.str()); break;
      default: throw FormatError{"bad option kind"};
    }
  }
  return options;
}

// A Python-run layer (kind 2): its class, why it is not emulated, the parameters it sets.
void write_python_wrapper(BinaryWriter& w, const PythonWrapperInfo& p) {
  w.str(p.class_name);
  w.str(p.reason);
  write_ints(w, p.sets);
}

PythonWrapperInfo read_python_wrapper(BinaryReader& r, int num_params) {
  PythonWrapperInfo p;
  p.class_name = r.str();
  p.reason = r.str();
  p.sets = read_params(r, num_params);
  return p;
}

// A LibTuner layer: its autotune fields, then these. Tag 4 records (the first format) end at the
// vendor; tag 5, which is written now, adds FlagGems' benchmark tables. Both read: indexes and
// packs written before the benchmark tables keep loading.
constexpr uint8_t kLibTunerBenchmarksTag = 5;
void write_libtuner(BinaryWriter& w, const LibTunerInfo& t) {
  w.u32(static_cast<uint32_t>(t.strategies.size()));
  for (const std::string& s : t.strategies) w.str(s);
  w.str(t.policy);
  w.str(t.config_table);
  w.u32(static_cast<uint32_t>(t.tables.size()));
  for (const std::string& s : t.tables) w.str(s);
  w.u32(static_cast<uint32_t>(t.config_columns.size()));
  for (const auto& config : t.config_columns) {
    w.u32(static_cast<uint32_t>(config.size()));
    for (const auto& [name, value] : config) {
      w.str(name);
      write_value(w, value);
    }
  }
  w.u32(static_cast<uint32_t>(t.triton_major));
  w.u32(static_cast<uint32_t>(t.triton_minor));
  w.str(t.vendor);
  w.u32(static_cast<uint32_t>(t.benchmark_tables.size()));
  for (const auto& names : t.benchmark_tables) {
    w.u32(static_cast<uint32_t>(names.size()));
    for (const std::string& s : names) w.str(s);
  }
  w.u32(static_cast<uint32_t>(t.benchmark_table_of_config.size()));
  for (uint32_t i : t.benchmark_table_of_config) w.u32(i);
}

LibTunerInfo read_libtuner(BinaryReader& r, const AutotuneInfo& a, bool with_benchmarks) {
  LibTunerInfo t;
  t.strategies.resize(read_count(r));
  if (t.strategies.size() != a.key.size()) throw FormatError{"a strategy per key argument"};
  for (std::string& s : t.strategies) s = r.str();
  t.policy = r.str();
  t.config_table = r.str();
  t.tables.resize(read_count(r));
  for (std::string& s : t.tables) s = r.str();
  t.config_columns.resize(read_count(r));
  if (t.config_columns.size() != a.configs.size()) throw FormatError{"columns per config"};
  for (auto& config : t.config_columns) {
    config.resize(read_count(r));
    for (auto& [name, value] : config) {
      name = r.str();
      value = read_value(r);
    }
  }
  t.triton_major = r.i32();
  t.triton_minor = r.i32();
  t.vendor = r.str();
  if (!with_benchmarks) return t;  // tag 4: written before the benchmark tables were known
  t.benchmark_tables.resize(read_count(r));
  for (auto& names : t.benchmark_tables) {
    names.resize(read_count(r));
    for (std::string& s : names) s = r.str();
  }
  t.benchmark_table_of_config.resize(read_count(r));
  if (!t.benchmark_table_of_config.empty() && t.benchmark_table_of_config.size() != a.configs.size()) {
    throw FormatError{"a benchmark table per config"};
  }
  for (uint32_t& i : t.benchmark_table_of_config) {
    i = r.u32();
    if (i >= t.benchmark_tables.size()) throw FormatError{"a benchmark table per config"};
  }
  return t;
}

void write_decorators(BinaryWriter& w, const std::vector<DecoratorLayer>& layers) {
  w.u32(static_cast<uint32_t>(layers.size()));
  for (const DecoratorLayer& layer : layers) {
    w.u8(layer.kind == DecoratorLayer::Kind::LibTuner ? kLibTunerBenchmarksTag : static_cast<uint8_t>(layer.kind));
    if (layer.kind == DecoratorLayer::Kind::Python) {
      write_python_wrapper(w, layer.python);
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::LibEntry) {
      w.u32(static_cast<uint32_t>(layer.lib_entry.divisibility));
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      w.u32(static_cast<uint32_t>(layer.heuristics.size()));
      for (const HeuristicInfo& h : layer.heuristics) {
        w.str(h.name);
        w.u32(static_cast<uint32_t>(h.param));
        w.str(h.program);
        w.str(h.not_translated_reason);
        w.str(h.source);
      }
      continue;
    }
    const AutotuneInfo& a = layer.autotune;
    write_ints(w, a.key);
    w.u32(static_cast<uint32_t>(a.configs.size()));
    for (const AutotuneConfigInfo& c : a.configs) {
      w.u32(static_cast<uint32_t>(c.kwargs.size()));
      for (const auto& [param, value] : c.kwargs) {
        w.u32(static_cast<uint32_t>(param));
        write_value(w, value);
      }
      w.u32(static_cast<uint32_t>(c.num_warps));
      w.u32(static_cast<uint32_t>(c.num_stages));
      w.u32(static_cast<uint32_t>(c.num_ctas));
      write_options(w, c.options);
      w.u8(c.has_pre_hook);
      w.str(c.repr);
    }
    write_ints(w, a.reset_to_zero);
    write_ints(w, a.restore_value);
    w.u8(static_cast<uint8_t>(a.has_pre_hook | a.has_post_hook << 1 | a.has_perf_model << 2 |
                              a.has_early_config_prune << 3 | a.cache_results << 4 | a.fla_cache_gate << 5));
    w.f64(a.top_k);
    w.f64(a.warmup_ms);
    w.f64(a.rep_ms);
    if (layer.kind == DecoratorLayer::Kind::LibTuner) write_libtuner(w, layer.libtuner);
  }
}

std::vector<DecoratorLayer> read_decorators(BinaryReader& r, int num_params) {
  std::vector<DecoratorLayer> layers(read_count(r));
  for (DecoratorLayer& layer : layers) {
    uint8_t kind = r.u8();
    const bool with_benchmarks = kind == kLibTunerBenchmarksTag;
    if (with_benchmarks) kind = static_cast<uint8_t>(DecoratorLayer::Kind::LibTuner);
    if (kind > static_cast<uint8_t>(DecoratorLayer::Kind::LibTuner)) throw FormatError{"bad decorator kind"};
    layer.kind = static_cast<DecoratorLayer::Kind>(kind);
    if (layer.kind == DecoratorLayer::Kind::Python) {
      layer.python = read_python_wrapper(r, num_params);
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::LibEntry) {
      const uint32_t divisibility = r.u32();
      if (divisibility == 0 || divisibility > (1u << 30)) throw FormatError{"bad LibEntry divisibility"};
      layer.lib_entry.divisibility = static_cast<int>(divisibility);
      continue;
    }
    if (layer.kind == DecoratorLayer::Kind::Heuristics) {
      layer.heuristics.resize(read_count(r));
      for (HeuristicInfo& h : layer.heuristics) {
        h.name = r.str();
        h.param = r.i32();
        // -1: a heuristic that sets a launch option named by its name (num_warps, ...).
        if (h.param == -1) h.option = heuristic_option_named(h.name);
        if ((h.param < 0 && h.option == HeuristicOption::None) || h.param < -1 || h.param >= num_params) {
          throw FormatError{"bad parameter index"};
        }
        h.program = r.str();
        h.not_translated_reason = r.str();
        h.source = r.str();
      }
      continue;
    }
    AutotuneInfo& a = layer.autotune;
    a.key = read_params(r, num_params);
    a.configs.resize(read_count(r));
    for (AutotuneConfigInfo& c : a.configs) {
      c.kwargs.resize(read_count(r));
      for (auto& [param, value] : c.kwargs) {
        param = r.i32();
        if (param < 0 || param >= num_params) throw FormatError{"bad parameter index"};
        value = read_value(r);
      }
      c.num_warps = r.i32();
      c.num_stages = r.i32();
      c.num_ctas = r.i32();
      c.options = read_options(r);
      c.has_pre_hook = r.u8() != 0;
      c.repr = r.str();
    }
    a.reset_to_zero = read_params(r, num_params);
    a.restore_value = read_params(r, num_params);
    const uint8_t flags = r.u8();
    a.has_pre_hook = flags & 1;
    a.has_post_hook = flags & 2;
    a.has_perf_model = flags & 4;
    a.has_early_config_prune = flags & 8;
    a.cache_results = flags & 16;
    a.fla_cache_gate = flags & 32;
    a.top_k = r.f64();
    a.warmup_ms = r.f64();
    a.rep_ms = r.f64();
    if (layer.kind == DecoratorLayer::Kind::LibTuner) layer.libtuner = read_libtuner(r, a, with_benchmarks);
  }
  return layers;
}

}  // namespace

void write_signature(BinaryWriter& w, const StaticSignature& s) {
  w.str(s.function);
  w.str(s.file);
  w.u32(static_cast<uint32_t>(s.first_line));
  w.u32(static_cast<uint32_t>(s.params.size()));
  for (const ParamInfo& p : s.params) {
    w.str(p.name);
    w.u32(static_cast<uint32_t>(p.index));
    w.u8(static_cast<uint8_t>(p.is_constexpr | p.is_const << 1 | p.do_not_specialize << 2 |
                              p.do_not_specialize_on_alignment << 3 | p.default_value.has_value() << 4));
    w.str(p.annotation);
    w.str(p.annotation_type);
    if (p.default_value) write_value(w, *p.default_value);
  }
  write_decorators(w, s.decorators);
}

StaticSignature read_signature(BinaryReader& r) {
  StaticSignature s;
  s.function = r.str();
  s.file = r.str();
  s.first_line = r.i32();
  const uint32_t n = r.u32();
  for (uint32_t i = 0; i < n; ++i) {
    ParamInfo p;
    p.name = r.str();
    p.index = r.i32();
    const uint8_t flags = r.u8();
    p.is_constexpr = flags & 1;
    p.is_const = flags & 2;
    p.do_not_specialize = flags & 4;
    p.do_not_specialize_on_alignment = flags & 8;
    p.annotation = r.str();
    p.annotation_type = r.str();
    if (flags & 16) p.default_value = read_value(r);
    s.params.push_back(std::move(p));
  }
  s.decorators = read_decorators(r, static_cast<int>(n));
  return s;
}

void write_compile_options(BinaryWriter& w, const CompileOptions& options) { write_options(w, options); }
CompileOptions read_compile_options(BinaryReader& r) { return read_options(r); }

}  // namespace triton_jit::detail
