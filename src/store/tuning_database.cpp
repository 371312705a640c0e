// FlagGems' tuning database through the SQLite C library (tuning_database.h).
#include "store/tuning_database.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

#include "key/repr.h"

#ifdef TRITON_JIT_HAVE_SQLITE3
#include <sqlite3.h>
#endif

namespace triton_jit::detail {

SqlValue SqlValue::of_int(int64_t v) {
  SqlValue s;
  s.type = Type::Integer;
  s.integer = v;
  return s;
}
SqlValue SqlValue::of_float(double v) {
  SqlValue s;
  s.type = Type::Float;
  s.real = v;
  return s;
}
SqlValue SqlValue::of_text(std::string v) {
  SqlValue s;
  s.type = Type::Text;
  s.text = std::move(v);
  return s;
}
SqlValue SqlValue::of_bool(bool v) {
  SqlValue s;
  s.type = Type::Boolean;
  s.integer = v ? 1 : 0;
  return s;
}

const char* SqlValue::sql_type() const noexcept {
  switch (type) {
    case Type::Integer: return "INTEGER";
    case Type::Float: return "FLOAT";
    case Type::Text: return "VARCHAR";
    case Type::Boolean: return "BOOLEAN";
  }
  return "INTEGER";
}

std::string SqlValue::repr() const {
  switch (type) {
    case Type::Integer: return std::to_string(integer);
    case Type::Float: return python_float_repr(real);
    case Type::Text: return python_str_repr(text);
    case Type::Boolean: return integer != 0 ? "True" : "False";
  }
  return "?";
}

bool SqlValue::operator==(const SqlValue& o) const noexcept {
  // Python's ==, which SQLite's comparison of a bound value with a column follows: 1 == 1.0 == True.
  auto number = [](const SqlValue& v, double* out) {
    if (v.type == Type::Text) return false;
    *out = v.type == Type::Float ? v.real : static_cast<double>(v.integer);
    return true;
  };
  double a = 0, b = 0;
  const bool na = number(*this, &a), nb = number(o, &b);
  if (na != nb) return false;
  if (!na) return text == o.text;
  if (type != Type::Float && o.type != Type::Float) return integer == o.integer;
  return a == b;
}

std::string flaggems_database_path(const std::string& device_name, const std::string& vendor, int triton_major,
                                   int triton_minor) {
  if (const char* url = std::getenv("FLAGGEMS_DB_URL"); url != nullptr) {
    // SQLAlchemy's sqlite URLs: sqlite:///relative/path, sqlite:////absolute/path.
    const std::string u = url;
    const std::string prefix = "sqlite:///";
    if (u.compare(0, prefix.size(), prefix) != 0 || u.size() == prefix.size()) {
      throw TuningDatabaseError("FLAGGEMS_DB_URL is '" + u +
                                "', not a sqlite:///PATH URL: the runtime reads and writes FlagGems' tuning "
                                "database only as a SQLite file");
    }
    return u.substr(prefix.size());
  }
  std::string dir;
  if (const char* d = std::getenv("FLAGGEMS_CACHE_DIR"); d != nullptr) {
    dir = d;
  } else {
    const char* home = std::getenv("HOME");
    dir = std::string(home != nullptr ? home : "") + "/.flaggems";
  }
  std::string name = vendor == "nvidia" || vendor.empty() ? device_name : vendor;
  if (vendor == "nvidia" || vendor.empty()) {
    for (char& c : name) {
      if (c == ' ') c = '_';
    }
  }
  return dir + "/config_cache/TunedConfig_" + name + "_triton_" + std::to_string(triton_major) + "_" +
         std::to_string(triton_minor) + ".db";
}

#ifdef TRITON_JIT_HAVE_SQLITE3

bool tuning_database_available() noexcept { return true; }

namespace {

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// One connection, closed on scope exit.
class Connection {
 public:
  Connection(const std::string& path, bool create) : path_(path) {
    const int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw TuningDatabaseError("cannot open FlagGems' tuning database " + path + ": " + why);
    }
    sqlite3_busy_timeout(db_, TuningDatabase::kBusyTimeoutMs);
  }
  ~Connection() { sqlite3_close(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw TuningDatabaseError(what + " in FlagGems' tuning database " + path_ + ": " + sqlite3_errmsg(db_));
  }
  void exec(const std::string& sql) const {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("'" + sql + "' failed");
  }
  sqlite3* get() const noexcept { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(const Connection& c, const std::string& sql) : c_(c) {
    if (sqlite3_prepare_v2(c.get(), sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) c.fail("'" + sql + "' failed");
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, const SqlValue& v) {
    int rc = SQLITE_OK;
    switch (v.type) {
      case SqlValue::Type::Integer:
      case SqlValue::Type::Boolean: rc = sqlite3_bind_int64(s_, index, v.integer); break;
      case SqlValue::Type::Float: rc = sqlite3_bind_double(s_, index, v.real); break;
      case SqlValue::Type::Text:
        rc = sqlite3_bind_text(s_, index, v.text.data(), static_cast<int>(v.text.size()), SQLITE_TRANSIENT);
        break;
    }
    if (rc != SQLITE_OK) c_.fail("binding a value");
  }
  // True for a row, false when done.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    c_.fail("a statement failed");
  }
  sqlite3_stmt* get() const noexcept { return s_; }

 private:
  const Connection& c_;
  sqlite3_stmt* s_ = nullptr;
};

bool table_exists(const Connection& c, const std::string& table) {
  Statement s(c, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?");
  s.bind(1, SqlValue::of_text(table));
  return s.step();
}

// The column's value as SQLAlchemy reads it back, typed by the column's declared type.
SqlValue column_value(sqlite3_stmt* s, int i) {
  const char* declared = sqlite3_column_decltype(s, i);
  const std::string type = declared != nullptr ? declared : "";
  const int storage = sqlite3_column_type(s, i);
  if (type == "BOOLEAN") return SqlValue::of_bool(sqlite3_column_int64(s, i) != 0);
  if (storage == SQLITE_FLOAT || type == "FLOAT" || type == "REAL") return SqlValue::of_float(sqlite3_column_double(s, i));
  if (storage == SQLITE_INTEGER) return SqlValue::of_int(sqlite3_column_int64(s, i));
  if (storage == SQLITE_NULL) throw TuningDatabaseError("a NULL column");
  const unsigned char* text = sqlite3_column_text(s, i);
  return SqlValue::of_text(std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(s, i)));
}

void make_parents(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
      throw TuningDatabaseError("cannot create the folder " + dir + " of FlagGems' tuning database");
    }
  }
}

}  // namespace

std::optional<std::vector<SqlColumn>> TuningDatabase::get_config(const std::string& table,
                                                                 const std::vector<SqlValue>& keys) const {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) return std::nullopt;
  Connection c(path_, /*create=*/false);
  if (!table_exists(c, table)) return std::nullopt;
  std::string sql = "SELECT * FROM " + quoted(table) + " WHERE ";
  // key_N unquoted: SQLite takes a double-quoted name that is no column for a string literal, and
  // a table of another shape must fail here, not match nothing.
  for (size_t i = 0; i < keys.size(); ++i) sql += (i ? " AND " : "") + ("key_" + std::to_string(i)) + " = ?";
  if (keys.empty()) sql += "1";
  Statement s(c, sql);
  for (size_t i = 0; i < keys.size(); ++i) s.bind(static_cast<int>(i + 1), keys[i]);
  if (!s.step()) return std::nullopt;
  std::vector<SqlColumn> out;
  const int n = sqlite3_column_count(s.get());
  for (int i = 0; i < n; ++i) {
    const std::string name = sqlite3_column_name(s.get(), i);
    if (name.compare(0, 4, "key_") == 0) continue;
    try {
      out.push_back({name, column_value(s.get(), i)});
    } catch (const TuningDatabaseError& e) {
      throw TuningDatabaseError(std::string(e.what()) + " (column " + name + " of table " + table + " in " + path_ + ")");
    }
  }
  return out;
}

namespace {

std::vector<SqlColumn> key_columns(const std::vector<SqlValue>& keys) {
  std::vector<SqlColumn> out;
  for (size_t i = 0; i < keys.size(); ++i) out.push_back({"key_" + std::to_string(i), keys[i]});
  return out;
}

// Creates `table` when absent (SQLAlchemy's CreateTable(if_not_exists=True): `primary` columns
// the primary key, then `values`, every column NOT NULL) and inserts or replaces the row
// (session.merge), in one transaction.
void put_row(const std::string& path, const std::string& table, const std::vector<SqlColumn>& primary,
             const std::vector<SqlColumn>& values) {
  make_parents(path);
  Connection c(path, /*create=*/true);
  // BEGIN IMMEDIATE takes the write lock at once (waiting up to the busy timeout), so two
  // processes never both read the table as absent and then fail to upgrade their locks.
  c.exec("BEGIN IMMEDIATE");
  try {
    std::string ddl = "CREATE TABLE IF NOT EXISTS " + quoted(table) + " (\n";
    std::string key, names, marks;
    for (const SqlColumn& col : primary) key += (key.empty() ? "" : ", ") + quoted(col.name);
    for (const auto* part : {&primary, &values}) {
      for (const SqlColumn& col : *part) {
        ddl += "\t" + quoted(col.name) + " " + col.value.sql_type() + " NOT NULL, \n";
        names += (names.empty() ? "" : ", ") + quoted(col.name);
        marks += marks.empty() ? "?" : ", ?";
      }
    }
    ddl += "\tPRIMARY KEY (" + key + ")\n)";
    c.exec(ddl);
    Statement s(c, "INSERT OR REPLACE INTO " + quoted(table) + " (" + names + ") VALUES (" + marks + ")");
    int i = 1;
    for (const auto* part : {&primary, &values}) {
      for (const SqlColumn& col : *part) s.bind(i++, col.value);
    }
    s.step();
    c.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(c.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace

void TuningDatabase::put_config(const std::string& table, const std::vector<SqlValue>& keys,
                                const std::vector<SqlColumn>& config) const {
  put_row(path_, table, key_columns(keys), config);
}

std::optional<std::array<double, 3>> TuningDatabase::get_benchmark(const std::string& table,
                                                                   const std::vector<SqlValue>& keys,
                                                                   const std::vector<SqlColumn>& config) const {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) return std::nullopt;
  Connection c(path_, /*create=*/false);
  if (!table_exists(c, table)) return std::nullopt;
  std::vector<SqlColumn> primary = key_columns(keys);
  primary.insert(primary.end(), config.begin(), config.end());
  std::string sql = "SELECT p50, p20, p80 FROM " + quoted(table) + " WHERE ";
  // key_N unquoted, as in get_config; a config column SQLite does not know matches nothing (and is
  // timed again).
  for (size_t i = 0; i < primary.size(); ++i) {
    sql += (i ? " AND " : "") + (i < keys.size() ? primary[i].name : quoted(primary[i].name)) + " = ?";
  }
  if (primary.empty()) sql += "1";
  Statement s(c, sql);
  for (size_t i = 0; i < primary.size(); ++i) s.bind(static_cast<int>(i + 1), primary[i].value);
  if (!s.step()) return std::nullopt;
  std::array<double, 3> out{};
  for (int i = 0; i < 3; ++i) {
    if (sqlite3_column_type(s.get(), i) == SQLITE_NULL) {
      throw TuningDatabaseError("a NULL timing in table " + table + " of " + path_);
    }
    out[static_cast<size_t>(i)] = sqlite3_column_double(s.get(), i);
  }
  return out;
}

void TuningDatabase::put_benchmark(const std::string& table, const std::vector<SqlValue>& keys,
                                   const std::vector<SqlColumn>& config, const std::array<double, 3>& timing) const {
  std::vector<SqlColumn> primary = key_columns(keys);
  primary.insert(primary.end(), config.begin(), config.end());
  put_row(path_, table, primary,
          {{"p50", SqlValue::of_float(timing[0])},
           {"p20", SqlValue::of_float(timing[1])},
           {"p80", SqlValue::of_float(timing[2])}});
}

#else  // no SQLite in this build

bool tuning_database_available() noexcept { return false; }

namespace {
[[noreturn]] void unavailable(const std::string& path) {
  throw TuningDatabaseError(
      "this build of libtriton_jit has no SQLite, so FlagGems' tuning database (" + path +
      ") cannot be read or written: install SQLite's development files (Debian: libsqlite3-dev) and rebuild");
}
}  // namespace

std::optional<std::vector<SqlColumn>> TuningDatabase::get_config(const std::string&,
                                                                 const std::vector<SqlValue>&) const {
  unavailable(path_);
}
void TuningDatabase::put_config(const std::string&, const std::vector<SqlValue>&,
                                const std::vector<SqlColumn>&) const {
  unavailable(path_);
}
std::optional<std::array<double, 3>> TuningDatabase::get_benchmark(const std::string&, const std::vector<SqlValue>&,
                                                                   const std::vector<SqlColumn>&) const {
  unavailable(path_);
}
void TuningDatabase::put_benchmark(const std::string&, const std::vector<SqlValue>&, const std::vector<SqlColumn>&,
                                   const std::array<double, 3>&) const {
  unavailable(path_);
}

#endif

}  // namespace triton_jit::detail
