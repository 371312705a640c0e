#include "options.h"

#include <charconv>
#include <cstdlib>
#include <set>
#include <string_view>

#include "triton_jit/errors.h"
#include "usage_error.h"

namespace triton_jit_cli {
namespace {

struct OptionSpec {
  std::string_view name;  // "--num-warps"
  bool takes_value;
  bool repeatable;
};

constexpr OptionSpec kInspectOptions[] = {
    {"--json", false, false},
};
constexpr OptionSpec kSpecializeOptions[] = {
    {"--args", true, false},     {"--num-warps", true, false}, {"--num-stages", true, false},
    {"--num-ctas", true, false}, {"--repr", false, false},
};
constexpr OptionSpec kCompileOptions[] = {
    {"--signature", true, false}, {"--num-warps", true, false}, {"--num-stages", true, false},
    {"--num-ctas", true, false},  {"--target", true, false},    {"--out", true, false},
    {"--option", true, true},
};
constexpr OptionSpec kTuneOptions[] = {
    {"--args", true, false},
    {"--store", false, false},
    {"--grid", true, false},
};

constexpr OptionSpec kIndexOptions[] = {
    {"--older-than", true, false},
};
constexpr OptionSpec kPackOptions[] = {
    {"--out", true, false},
    {"--jobs", true, false},
    {"--quiet", false, false},
};

// What the words after the options are: FILE.py:FUNCTION, or plain words (index, pack).
enum class Positional { Kernel, Words };

struct CommandSpec {
  std::string_view name;
  Command command;
  const OptionSpec* options;
  size_t num_options;
  Positional positional;
};

constexpr CommandSpec kCommands[] = {
    {"inspect", Command::Inspect, kInspectOptions, std::size(kInspectOptions), Positional::Kernel},
    {"specialize", Command::Specialize, kSpecializeOptions, std::size(kSpecializeOptions), Positional::Kernel},
    {"compile", Command::Compile, kCompileOptions, std::size(kCompileOptions), Positional::Kernel},
    {"tune", Command::Tune, kTuneOptions, std::size(kTuneOptions), Positional::Kernel},
    {"index", Command::Index, kIndexOptions, std::size(kIndexOptions), Positional::Words},
    {"pack", Command::Pack, kPackOptions, std::size(kPackOptions), Positional::Words},
};

// `cache` is the index command's former name, still accepted: it runs `index` as it is.
constexpr std::string_view kIndexFormerName = "cache";

const CommandSpec* find_command(std::string_view name) {
  if (name == kIndexFormerName) name = "index";
  for (const CommandSpec& c : kCommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool is_help(std::string_view a) { return a == "-h" || a == "--help"; }
bool is_verbose(std::string_view a) { return a == "-v" || a == "--verbose"; }

// The ranges a launch accepts (TritonJitFunction checks the same for calls), as errors say them.
constexpr std::string_view kNumWarpsRange = "a power of two from 1 to 64";
constexpr std::string_view kNumStagesRange = "from 0 to 255";
constexpr std::string_view kNumCtasRange = "from 1 to 16";
constexpr std::string_view kJobsRange = "from 1 to 2147483647";

// An integer option; `range` says what it takes, for a number too large for any.
int parse_int(std::string_view option, const std::string& text, std::string_view range) {
  int value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (!text.empty() && ec == std::errc::result_out_of_range && ptr == end) {
    throw UsageError(std::string(option) + " " + text + " is out of range: it must be " + std::string(range));
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw UsageError(std::string(option) + " expects an integer, got '" + text + "'");
  }
  return value;
}

void check_launch_options(const Options& o) {
  const unsigned w = static_cast<unsigned>(o.num_warps);
  if (o.num_warps < 1 || o.num_warps > 64 || (w & (w - 1)) != 0) {
    throw UsageError("--num-warps must be " + std::string(kNumWarpsRange) + ", got " + std::to_string(o.num_warps));
  }
  if ((o.num_stages < 0 && o.num_stages != triton_jit::kTargetDefaultNumStages) || o.num_stages > 255) {
    throw UsageError("--num-stages must be " + std::string(kNumStagesRange) + ", got " + std::to_string(o.num_stages));
  }
  if (o.num_ctas < 1 || o.num_ctas > 16) {
    throw UsageError("--num-ctas must be " + std::string(kNumCtasRange) + ", got " + std::to_string(o.num_ctas));
  }
}

constexpr std::string_view kModulePrefix = "module:";

// FILE.py:FUNCTION, or module:MODULE:FUNCTION (a file named "module" needs a path: ./module:FN).
void split_kernel_spec(const std::string& text, Options* o) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    throw UsageError("expected FILE.py:FUNCTION or module:MODULE:FUNCTION, got '" + text + "'");
  }
  o->file = text.substr(0, colon);
  o->function = text.substr(colon + 1);
  if (o->file.rfind(kModulePrefix, 0) == 0) {
    o->module = o->file.substr(kModulePrefix.size());
    o->file.clear();
    if (o->module.empty()) throw UsageError("expected module:MODULE:FUNCTION, got '" + text + "'");
  }
}

// --grid X[,Y[,Z]]: one to three positive integers.
void parse_grid(const std::string& text, Options* o) {
  const std::string expected = "--grid expects X[,Y[,Z]] with positive integers (e.g. 128 or 64,8), got '" + text + "'";
  size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + end, value);
    if (end == start || ec != std::errc() || ptr != text.data() + end || value < 1) throw UsageError(expected);
    o->grid[d] = value;
    if (comma == std::string::npos) return;
    start = comma + 1;
  }
  throw UsageError(expected);
}

std::string first_line(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

void apply(std::string_view name, const std::string& value, Options* o) {
  if (name == "--json") {
    o->json = true;
  } else if (name == "--repr") {
    o->repr = true;
  } else if (name == "--store") {
    o->store = true;
  } else if (name == "--grid") {
    parse_grid(value, o);
  } else if (name == "--args") {
    o->args_json = value;
  } else if (name == "--signature") {
    o->signature = value;
  } else if (name == "--num-warps") {
    o->num_warps = parse_int(name, value, kNumWarpsRange);
  } else if (name == "--num-stages") {
    o->num_stages = parse_int(name, value, kNumStagesRange);
    // A negative number would read as kTargetDefaultNumStages: leaving --num-stages out says that.
    if (o->num_stages < 0) {
      throw UsageError("--num-stages must be " + std::string(kNumStagesRange) + ", got " + value);
    }
  } else if (name == "--num-ctas") {
    o->num_ctas = parse_int(name, value, kNumCtasRange);
  } else if (name == "--out") {
    if (value.empty()) throw UsageError("--out needs a path");
    o->out_dir = value;
    o->out_file = value;
  } else if (name == "--jobs") {
    o->jobs = parse_int(name, value, kJobsRange);
    if (o->jobs < 1) throw UsageError("--jobs must be at least 1, got " + value);
  } else if (name == "--quiet") {
    o->quiet = true;
  } else if (name == "--older-than") {
    char* end = nullptr;
    o->older_than_days = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || o->older_than_days < 0) {
      throw UsageError("--older-than expects a number of days (e.g. 30 or 0.5), got '" + value + "'");
    }
  } else if (name == "--target") {
    try {
      o->target = triton_jit::Target::parse(value);
    } catch (const triton_jit::Error& e) {
      throw UsageError(first_line(e.what()));
    }
  } else if (name == "--option") {
    const size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--option expects KEY=VALUE (e.g. maxnreg=128), got '" + value + "'");
    }
    o->compile_options.emplace_back(value.substr(0, eq), value.substr(eq + 1));
  }
}

}  // namespace

bool wants_verbose(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (is_verbose(a)) return true;
  }
  return false;
}

Options parse_command_line(int argc, const char* const* argv) {
  Options o;
  o.verbose = wants_verbose(argc, argv);
  int i = 1;
  // Options before the command.
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string_view a = argv[i];
    if (is_help(a)) {
      o.command = Command::Help;
      return o;
    }
    if (a == "-V" || a == "--version") {
      o.command = Command::Version;
      return o;
    }
    if (!is_verbose(a)) throw UsageError("unknown option '" + std::string(a) + "' (see triton-jit --help)");
  }
  if (i == argc)
    throw UsageError(
        "no command given: expected inspect, specialize, compile, tune, index or pack (see triton-jit --help)");

  const std::string_view name = argv[i++];
  if (name == "help") {
    o.command = Command::Help;
    if (i < argc) {
      const CommandSpec* topic = find_command(argv[i]);
      if (topic == nullptr) throw UsageError("no help for unknown command '" + std::string(argv[i]) + "'");
      o.help_topic = std::string(topic->name);
      if (i + 1 < argc) throw UsageError("unexpected argument '" + std::string(argv[i + 1]) + "' after help");
    }
    return o;
  }
  const CommandSpec* command = find_command(name);
  if (command == nullptr) {
    throw UsageError("unknown command '" + std::string(name) +
                     "': expected inspect, specialize, compile, tune, index or pack (see triton-jit --help)");
  }
  o.command = command->command;
  const std::string help_hint = " (see triton-jit help " + std::string(command->name) + ")";

  // --help anywhere before "--" wins over everything else.
  for (int j = i; j < argc && std::string_view(argv[j]) != "--"; ++j) {
    if (is_help(argv[j])) {
      o.command = Command::Help;
      o.help_topic = std::string(command->name);
      return o;
    }
  }

  bool kernel_given = false;
  std::vector<std::string> words;
  bool options_done = false;
  std::set<std::string_view> seen;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!options_done && arg == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && arg.size() > 1 && arg[0] == '-') {
      if (is_verbose(arg)) continue;
      const size_t eq = arg.find('=');
      const std::string opt_name = arg.substr(0, eq);
      const OptionSpec* spec = nullptr;
      for (size_t k = 0; k < command->num_options; ++k) {
        if (command->options[k].name == opt_name) spec = &command->options[k];
      }
      if (spec == nullptr) {
        throw UsageError("unknown option '" + opt_name + "' for " + std::string(command->name) + help_hint);
      }
      if (!spec->repeatable && !seen.insert(spec->name).second) {
        throw UsageError("option " + opt_name + " given more than once");
      }
      std::string value;
      if (spec->takes_value) {
        if (eq != std::string::npos) {
          value = arg.substr(eq + 1);
        } else if (i + 1 < argc) {
          value = argv[++i];
        } else {
          throw UsageError("option " + opt_name + " needs a value" + help_hint);
        }
      } else if (eq != std::string::npos) {
        throw UsageError("option " + opt_name + " takes no value");
      }
      apply(spec->name, value, &o);
      continue;
    }
    if (command->positional == Positional::Words) {
      words.push_back(arg);
      continue;
    }
    if (kernel_given) throw UsageError("unexpected argument '" + arg + "'" + help_hint);
    split_kernel_spec(arg, &o);
    kernel_given = true;
  }

  if (o.command == Command::Index) {
    if (words.empty()) throw UsageError("index: missing action: list, info ID, clear or prune" + help_hint);
    o.index_action = words[0];
    const size_t wanted = o.index_action == "info" ? 2 : 1;
    if (o.index_action != "list" && o.index_action != "info" && o.index_action != "clear" &&
        o.index_action != "prune") {
      throw UsageError("index: unknown action '" + o.index_action + "': expected list, info, clear or prune" +
                       help_hint);
    }
    if (words.size() < wanted) throw UsageError("index info: missing the entry ID (see triton-jit index list)");
    if (words.size() > wanted) throw UsageError("unexpected argument '" + words[wanted] + "'" + help_hint);
    if (wanted == 2) o.index_entry_id = words[1];
    if (o.index_action == "prune" && !seen.count("--older-than")) {
      throw UsageError("index prune: missing required option --older-than DAYS" + help_hint);
    }
    if (o.index_action != "prune" && seen.count("--older-than")) {
      throw UsageError("--older-than applies to index prune only");
    }
    return o;
  }
  if (o.command == Command::Pack) {
    if (words.empty()) throw UsageError("pack: missing MANIFEST" + help_hint);
    if (words.size() > 1) throw UsageError("unexpected argument '" + words[1] + "'" + help_hint);
    o.manifest = words[0];
    if (!seen.count("--out")) throw UsageError("pack: missing required option --out FILE" + help_hint);
    return o;
  }
  if (!kernel_given) throw UsageError(std::string(command->name) + ": missing FILE.py:FUNCTION" + help_hint);
  auto require = [&](std::string_view option) {
    if (!seen.count(option)) {
      throw UsageError(std::string(command->name) + ": missing required option " + std::string(option) + help_hint);
    }
  };
  if (o.command == Command::Specialize || o.command == Command::Tune) {
    require("--args");
  } else if (o.command == Command::Compile) {
    require("--signature");
    require("--target");
    require("--out");
  }
  check_launch_options(o);
  return o;
}

const triton_jit::TritonJitFunction& kernel_function(const Options& o) {
  return o.module.empty() ? triton_jit::TritonJitFunction::get(o.file, o.function)
                          : triton_jit::TritonJitFunction::get_module(o.module, o.function);
}

std::string help_text(const std::string& topic) {
  if (topic == "inspect") {
    return R"(Usage: triton-jit inspect FILE.py:FUNCTION [--json]

Prints the static signature of a @triton.jit function, one parameter a line:
  NAME[: ANNOTATION][ = DEFAULT][  [FLAGS]]
FLAGS lists do_not_specialize, do_not_specialize_on_alignment, and "no C++ default"
for a default C++ cannot pass (a tuple, say): such a parameter must be given.
A decorated function's wrappers come first, outermost first, as they stand above the def:
  @triton.heuristics: NAME[ (through Python)], ...
  @triton.autotune: key=[NAMES][, reset_to_zero=[...]][, restore_value=[...]]..., N configs
      each config as Python prints it

Options:
  --json   print the signature as one JSON object instead
)";
  }
  if (topic == "specialize") {
    return R"(Usage: triton-jit specialize FILE.py:FUNCTION --args JSON [--num-warps N] [--num-stages N]
                           [--num-ctas N] [--repr]

Prints on one line, in Triton's signature syntax (e.g. *fp16:16,i32,1024), the specialization
a call with these arguments uses. It runs the same code as a launch; no GPU is needed.

Options:
  --args JSON     the arguments: a JSON list, one item per parameter in order; trailing
                  parameters with defaults may be left out.
                    7, -3                           int (i32, i64 or u64 by value)
                    1.5, 2e-3                       float (fp32)
                    true, false                     bool (u1)
                    null                            None
                    "text"                          string (tl.constexpr parameters only)
                    {"ptr": "fp16", "addr": 4096}   a device pointer to fp16 at that address
                                                    ("addr" may also be a string: "0x1000")
                    {"dtype": "fp16"}               Triton's dtype tl.float16 (tl.constexpr only;
                                                    any name a pointer takes: bf16, fp32, i64, ...)
                    {"torch_dtype": "float16"}      torch's dtype torch.float16, as x.dtype passes
                                                    it (tl.constexpr only; Triton keys it apart)
  --num-warps N   default 4
  --num-stages N  default: the target's, as Triton's launch without it (3 on cuda, 2 on hip)
  --num-ctas N    default 1
  --repr          also print Triton's specialization list, e.g. [('*fp16', 'D'), ('i32', '')]
)";
  }
  if (topic == "compile") {
    return R"(Usage: triton-jit compile FILE.py:FUNCTION --signature SIG --target TARGET --out DIR
                        [--num-warps N] [--num-stages N] [--num-ctas N] [--option KEY=VALUE]...

Compiles one specialization ahead of time and writes DIR/<kernel>.cubin (DIR/<kernel>.hsaco for
a hip target) and DIR/<kernel>.json (the launch metadata: name, shared memory, scratch sizes,
Triton's full metadata, signature, options and target). Prints the two paths, one a line.
Trailing parameters with defaults may be left out of the signature, as of specialize's --args.
The target and the options are checked against the installed Triton before compiling.
Compiler output (ptxas, LLVM warnings) is shown only with -v.

Options:
  --signature SIG      Triton's signature syntax, one item per parameter, e.g. "*fp16:16,i32,1024"
                       (the output of triton-jit specialize); a dtype constexpr is written as
                       its repr: triton.language.float16 (or tl.float16) or torch.float16
  --target TARGET      BACKEND:ARCH[:WARP_SIZE], e.g. cuda:90 or cuda:80, or hip:gfx942 when the
                       installed Triton has the AMD backend (its wheels do: such kernels
                       compile on any machine and launch through the HIP runtime);
                       a WARP_SIZE must be the backend's (32 for cuda; 64 before gfx10, 32 from
                       gfx10 on for hip)
  --out DIR            output directory (created if missing)
  --num-warps N        default 4
  --num-stages N       default: the target's, as Triton's launch without it (3 on cuda, 2
                       on hip)
  --num-ctas N         default 1
  --option KEY=VALUE   a further compile option (maxnreg=128, enable_fp_fusion=false, ...);
                       VALUE is read as a bool (true/false), an integer, a float, else a string,
                       and must fit the option's type in Triton (CUDAOptions, HIPOptions)
)";
  }
  if (topic == "tune") {
    return R"(Usage: triton-jit tune FILE.py:FUNCTION --args JSON [--grid X[,Y[,Z]]] [--store]

Autotunes a @triton.autotune function for the given arguments on the GPU, as a first launch
does: every config is compiled and timed (Triton's do_bench: warm-up and repetition budgets, an
L2 flush before each run; reset_to_zero and restore_value honoured). Prints the tuning key (the
device's name after it) and a table, one row per config: its median, 20th and 80th percentile
time in ms and a note ("chosen", or why the config was skipped). Needs a GPU.

Without --store the kernel index is off for this process: the configs are always timed and the
choice is kept nowhere. With --store the index is on and the choice is written to it, so later
processes (launches, specialize, compile) use it without tuning; a key the index already holds is
then not timed again (the stored choice is printed).

Options:
  --args JSON       the arguments, as for triton-jit specialize (see triton-jit help specialize),
                    plus the form that gives a kernel real memory:
                      {"ptr": "fp16", "bytes": 1048576}   that many zeroed bytes of device
                                                          memory (its size lets reset_to_zero
                                                          and restore_value work)
                    An {"ptr": ..., "addr": ...} pointer is passed as given: it must be memory the
                    kernel may touch (or a kernel that does not).
  --grid X[,Y[,Z]]  the launch grid every config is timed with (default 1). A fixed grid: a grid
                    that depends on the config (cdiv(n, meta["BLOCK"])) cannot be given here, so
                    time with the grid of the config you mean, or one that covers the work.
  --store           keep the choice in the kernel index (TRITON_JIT_INDEX_DIR)
)";
  }
  if (topic == "index") {
    return R"(Usage: triton-jit index list
       triton-jit index info ID
       triton-jit index clear
       triton-jit index prune --older-than DAYS

The persistent kernel index: every kernel compiled is stored there with what identifies it
(function, source hashes of its dependencies, specialization, options, target, the Triton
installation that compiled it), so a later process launches it without Python. A process
whose TRITON_JIT_PYTHON names another installation has entries of its own.

Actions:
  list                      one entry a line: ID (12 digits), state, function, signature,
                            launch options, target, Triton version, size
  info ID                   everything about one entry (ID: any unique prefix)
  clear                     remove every entry
  prune --older-than DAYS   remove entries unused for DAYS days, and stale or damaged ones

The directory: TRITON_JIT_INDEX_DIR, else TRITON_JIT_CACHE_DIR (its former name), else
$XDG_CACHE_HOME/triton_jit, else ~/.cache/triton_jit.
`triton-jit cache` is this command's former name, still accepted.
)";
  }
  if (topic == "pack") {
    return R"(Usage: triton-jit pack MANIFEST --out FILE [--jobs N] [--quiet]

Compiles every kernel a manifest lists and writes them, with their functions' signatures, to
one kernel pack. A process that loads the pack (triton_jit::load_pack, or TRITON_JIT_PACKS)
launches those kernels with neither Python nor Triton.

Manifest: one kernel a line ('#' starts a comment; FILE is relative to the manifest; each
option at most once a line):
  FILE.py:FUNCTION SIGNATURE [num_warps=N] [num_stages=N] [num_ctas=N] [OPTION=VALUE]...
                   [target=cuda:90[,cuda:80...]]
A process without a function's source finds it by a path that ends with FILE's path relative
to the pack's root: a line root=DIR (relative to the manifest), else the deepest folder that
holds every FILE.
module:MODULE:FUNCTION in place of FILE.py:FUNCTION names the function by module
(module:pkg.sub.kernels:add_kernel), imported the normal Python way; a process finds it in
the pack by that name even without Python.
SIGNATURE is Triton's syntax, as triton-jit specialize prints it: *fp32:16,*fp32:16,i32,1024.
Without target=, kernels are built for TRITON_JIT_TARGET, else the GPU present, else cuda:90.

For a function under @triton.autotune, the pack carries the config it takes for a tuning key,
so a process that loads the pack launches it without tuning and without Python:
  FILE.py:FUNCTION autotune key=KEY config=CHOICE [layer=L]
KEY is Triton's tuning key as triton-jit tune or a MissingKernelError prints it, spaces and all
((1024, 'torch.float16')); CHOICE is the config's index (1) or its values
({"BLOCK": 64, "num_warps": 4}); layer=L picks one of several autotuners (outermost 0). Add the
chosen kernel's own line too. Or let pack tune the call on the GPU, which also adds that line:
  FILE.py:FUNCTION autotune args='JSON' [grid=X[,Y[,Z]]]
with JSON as triton-jit tune --args takes it. Without a GPU such a line is an error: name the
config instead.

Options:
  --out FILE   the pack to write (replaced atomically)
  --jobs N     parallel compile processes (default: one per core)
  --quiet      no progress bar (it is drawn only on a terminal anyway)
)";
  }
  return R"(Usage: triton-jit [-v] COMMAND [OPTIONS] FILE.py:FUNCTION

Inspects, specializes and compiles @triton.jit kernels through libtriton_jit, without a GPU;
autotunes them on one.
module:MODULE:FUNCTION (module:pkg.sub.kernels:add_kernel) names a function by module instead
of by file: the module is imported the normal Python way, its packages initialised first.
FUNCTION may continue with attributes: kernel.fn is what the outermost decorator wraps (the
@triton.jit function under one @triton.autotune or @triton.heuristics; kernel.fn.fn under two).

Commands:
  inspect          print the static signature, one parameter a line
  specialize       print the specialization key a call with the given arguments uses
  compile          compile a specialization ahead of time to a .cubin and a .json
  tune             autotune a @triton.autotune function on the GPU; print each config's time
  index ACTION     list, inspect, clear or prune the persistent kernel index
  pack MANIFEST    compile the kernels a manifest lists into one kernel pack
  help [COMMAND]   print this help, or a command's

Options:
  -h, --help       print help (after a command: the command's help)
  -V, --version    print the version
  -v, --verbose    on errors, print the full message and the Python traceback

Exit status: 0 on success, 1 when the runtime fails (lookup, arguments, compile, I/O),
2 for a usage error. Errors are reported as one line on stderr, after the runtime's warnings
("triton-jit: warning: ...": a damaged pack, an ignored environment variable), one line each.

Environment: TRITON_JIT_PYTHON (the Python whose triton compiles), TRITON_CACHE_DIR,
TRITON_JIT_INDEX_DIR (the kernel index), TRITON_JIT_TARGET (the target specialize assumes),
TRITON_JIT_PRELOAD (modules to import before any kernel), TRITON_JIT_LOG=info.
)";
}

}  // namespace triton_jit_cli
