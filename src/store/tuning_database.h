#pragma once
// FlagGems' tuning database (flag_gems/utils/libentry.py, LibCache; models/sql.py,
// SQLPersistantModel), read and written through the SQLite C library so that a config FlagGems
// tuned in Python is used from C++ and the runtime's choice is used by FlagGems: the same file,
// the same tables, the same columns and value types as SQLAlchemy writes them.
//
// One table per kernel and number of key columns: "{name}_{kernel_hash}-{md5('key_0key_1...')}"
// (the bridge computes the names), with key_0.. as the primary key and one column per entry of the
// config's all_kwargs() whose value is an int, float or str. SQLAlchemy's types: INTEGER, FLOAT,
// VARCHAR, BOOLEAN, every column NOT NULL. Beside it FlagGems keeps, per kernel, a benchmark
// table of every timed config's p50, p20 and p80 (its policies' bench_fn reads it before timing).
//
// Every problem (the file locked past the busy timeout, corrupt, a table of another shape, a
// build without SQLite) is a TuningDatabaseError: the caller warns and tunes instead.

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "key/flaggems_version.h"

namespace triton_jit::detail {

// A value of a key or config column, typed as Python's type(value) maps to SQLAlchemy's column.
struct SqlValue {
  enum class Type { Integer, Float, Text, Boolean };
  Type type = Type::Integer;
  int64_t integer = 0;  // Integer, Boolean (0/1)
  double real = 0;      // Float
  std::string text;     // Text

  static SqlValue of_int(int64_t v);
  static SqlValue of_float(double v);
  static SqlValue of_text(std::string v);
  static SqlValue of_bool(bool v);
  // SQLAlchemy's column type for the value's Python type.
  const char* sql_type() const noexcept;
  // Python's repr of the value, as FlagGems' key tuple prints it.
  std::string repr() const;
  bool operator==(const SqlValue& other) const noexcept;
};

struct SqlColumn {
  std::string name;
  SqlValue value;
};

struct TuningDatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether this build has SQLite (find_package(SQLite3) at configure time).
bool tuning_database_available() noexcept;

// The database file FlagGems uses on device `device_name` under Triton major.minor: the path of
// FLAGGEMS_DB_URL when it is a sqlite:/// URL (another URL: TuningDatabaseError), else
// FLAGGEMS_CACHE_DIR (default ~/.flaggems) /config_cache/TunedConfig_{device}_triton_{M}_{m}.db,
// device spaces becoming '_' (vendors other than nvidia: the vendor's name instead of the device's).
std::string flaggems_database_path(const std::string& device_name, const std::string& vendor, int triton_major,
                                   int triton_minor);

class TuningDatabase {
 public:
  explicit TuningDatabase(std::string path) : path_(std::move(path)) {}
  const std::string& path() const noexcept { return path_; }

  // The non-key columns of the row of `table` whose key columns equal `keys`; nullopt when the
  // file, the table or the row does not exist.
  std::optional<std::vector<SqlColumn>> get_config(const std::string& table, const std::vector<SqlValue>& keys) const;
  // Creates the table when absent (as SQLAlchemy's CreateTable(if_not_exists=True) does) and
  // inserts or replaces the row (session.merge), in one transaction.
  void put_config(const std::string& table, const std::vector<SqlValue>& keys,
                  const std::vector<SqlColumn>& config) const;

  // FlagGems' benchmark table (BenchmarkCache): the timing [p50, p20, p80] in ms of `config` for
  // `keys`, in the row whose key_0.. and config columns equal them; nullopt when the file, the
  // table or the row does not exist.
  std::optional<std::array<double, 3>> get_benchmark(const std::string& table, const std::vector<SqlValue>& keys,
                                                     const std::vector<SqlColumn>& config) const;
  // Creates the table when absent (key_0.., then the config's columns, all the primary key; then
  // p50, p20, p80 FLOAT) and inserts or replaces the row, as SQLPersistantModel.put_benchmark does.
  void put_benchmark(const std::string& table, const std::vector<SqlValue>& keys, const std::vector<SqlColumn>& config,
                     const std::array<double, 3>& timing) const;

  // Milliseconds a writer waits for another's lock before giving up.
  static constexpr int kBusyTimeoutMs = 10000;

 private:
  std::string path_;
};

}  // namespace triton_jit::detail
