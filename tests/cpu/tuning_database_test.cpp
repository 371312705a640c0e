// FlagGems' tuning database through the SQLite C library (src/store/tuning_database.h), against
// FlagGems 5.0.2's own Python (flag_gems/utils/libentry.py and models/, loaded without a GPU by
// tests/support/flaggems_stub.py with SQLAlchemy): what C++ writes, FlagGems' SQLPersistantModel
// reads, and the reverse; the file FlagGems' LibCache names; concurrent writers; a database
// locked, corrupt or of another schema is an error the caller turns into a warning.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "flaggems_python.h"
#include "store/tuning_database.h"

namespace tj = triton_jit::detail;

using flaggems_test::flaggems_python;
using flaggems_test::temp_dir;

namespace {

// The SQL table FlagGems names for `name` and a key of n columns.
std::string table_for(const std::string& name, int n) {
  std::string keys;
  for (int i = 0; i < n; ++i) keys += "key_" + std::to_string(i);
  const std::string out =
      flaggems_python("", "import hashlib\nprint('" + name + "-' + hashlib.md5(b'" + keys + "').hexdigest())\n");
  return out;
}

std::vector<tj::SqlValue> sample_key() {
  return {tj::SqlValue::of_int(1024), tj::SqlValue::of_float(0.5), tj::SqlValue::of_text("torch.float16"),
          tj::SqlValue::of_bool(true)};
}

std::vector<tj::SqlColumn> sample_config() {
  return {{"BLOCK", tj::SqlValue::of_int(128)},
          {"num_warps", tj::SqlValue::of_int(4)},
          {"num_ctas", tj::SqlValue::of_int(1)},
          {"num_stages", tj::SqlValue::of_int(3)}};
}

}  // namespace

TEST(TuningDatabase, FlagGemsVersionIsNamed) { EXPECT_STREQ(tj::kFlagGemsVersion, "5.0.2"); }

TEST(TuningDatabase, BuiltWithSqlite) {
  // scripts/setup.sh installs libsqlite3-dev, so CI (CI set) must have it; elsewhere (a GPU machine
  // that reaches no registry) a build without it is allowed and says so at run time.
  if (!tj::tuning_database_available() && std::getenv("CI") == nullptr) {
    GTEST_SKIP() << "built without SQLite (libsqlite3-dev): LibTuner kernels cannot share FlagGems' database here";
  }
  EXPECT_TRUE(tj::tuning_database_available());
}

TEST(TuningDatabase, FileNameAsLibCacheNamesIt) {
  const std::string dir = temp_dir();
  const std::string out = flaggems_python("env -u FLAGGEMS_DB_URL FLAGGEMS_CACHE_DIR=" + dir,
                                          "print(le.libcache.db_url)\nprint(le.major_version, le.minor_version)\n");
  SKIP_WITHOUT_FLAGGEMS(out);
  const size_t nl = out.find('\n');
  ASSERT_NE(nl, std::string::npos) << out;
  const int major = std::atoi(out.c_str() + nl + 1);
  const int minor = std::atoi(out.c_str() + out.find(' ', nl) + 1);
  unsetenv("FLAGGEMS_DB_URL");
  setenv("FLAGGEMS_CACHE_DIR", dir.c_str(), 1);
  EXPECT_EQ("sqlite:///" + tj::flaggems_database_path("NVIDIA H100 80GB HBM3", "nvidia", major, minor),
            out.substr(0, nl));
  setenv("FLAGGEMS_DB_URL", "sqlite:////x/y.db", 1);
  EXPECT_EQ(tj::flaggems_database_path("any", "nvidia", major, minor), "/x/y.db");
  setenv("FLAGGEMS_DB_URL", "postgresql://host/db", 1);
  EXPECT_THROW(tj::flaggems_database_path("any", "nvidia", major, minor), tj::TuningDatabaseError);
  unsetenv("FLAGGEMS_DB_URL");
  unsetenv("FLAGGEMS_CACHE_DIR");
}

TEST(TuningDatabase, FlagGemsReadsWhatCppWrote) {
  const std::string path = temp_dir() + "/sub/dir/t.db";  // folders made as FlagGems makes them
  const std::string table = table_for("kern_0123", 4);
  SKIP_WITHOUT_FLAGGEMS(table);
  tj::TuningDatabase db(path);
  db.put_config(table, sample_key(), sample_config());
  db.put_config(table, sample_key(), sample_config());  // merge: the same row again
  const std::string out =
      flaggems_python("FLAGGEMS_DB_URL=sqlite:///" + path,
                      "print(le.libcache.model.get_config('kern_0123', (1024, 0.5, 'torch.float16', True)))\n"
                      "print(le.libcache.model.get_config('kern_0123', (1024, 0.5, 'torch.float32', True)))\n");
  // str(Config) as the installed Triton writes it (3.9 adds ir_override).
  EXPECT_EQ(out, flaggems_python("", "import triton\nprint(triton.Config({'BLOCK': 128}, num_warps=4, num_stages=3))\n") +
                     "\nNone");
}

TEST(TuningDatabase, CppReadsWhatFlagGemsWrote) {
  const std::string path = temp_dir() + "/t.db";
  const std::string out = flaggems_python(
      "FLAGGEMS_DB_URL=sqlite:///" + path,
      "le.libcache.model.put_config('kern_4567', (1024, 0.5, 'torch.float16', True), "
      "triton.Config({'BLOCK': 64, 'SCALE': 1.5, 'MODE': 'x', 'EVEN': False}, num_warps=8, num_stages=2))\n"
      "print('ok')\n");
  SKIP_WITHOUT_FLAGGEMS(out);
  ASSERT_EQ(out, "ok");
  tj::TuningDatabase db(path);
  const auto row = db.get_config(table_for("kern_4567", 4), sample_key());
  ASSERT_TRUE(row.has_value());
  std::string text;
  for (const tj::SqlColumn& c : *row) text += c.name + "=" + c.value.repr() + ";";
  EXPECT_EQ(text, "BLOCK=64;SCALE=1.5;MODE='x';EVEN=False;num_warps=8;num_ctas=1;num_stages=2;");
  EXPECT_FALSE(db.get_config(table_for("kern_4567", 4), {tj::SqlValue::of_int(1), tj::SqlValue::of_float(0.5),
                                                         tj::SqlValue::of_text("torch.float16"),
                                                         tj::SqlValue::of_bool(true)}));
  EXPECT_FALSE(db.get_config("no such table", sample_key()));
  EXPECT_FALSE(tj::TuningDatabase(path + ".absent").get_config("t", sample_key()));
}

TEST(TuningDatabase, CorruptFileIsAnError) {
  const std::string path = temp_dir() + "/corrupt.db";
  {
    std::ofstream f(path);
    for (int i = 0; i < 200; ++i) f << "not a database ";
  }
  tj::TuningDatabase db(path);
  EXPECT_THROW(db.get_config("t", sample_key()), tj::TuningDatabaseError);
  EXPECT_THROW(db.put_config("t", sample_key(), sample_config()), tj::TuningDatabaseError);
}

TEST(TuningDatabase, OtherSchemaIsAnError) {
  const std::string path = temp_dir() + "/other.db";
  tj::TuningDatabase db(path);
  // A table of that name with other columns: reading and writing fail, nothing crashes.
  db.put_config("t", {tj::SqlValue::of_text("a")}, {{"other", tj::SqlValue::of_int(1)}});
  EXPECT_THROW(db.get_config("t", sample_key()), tj::TuningDatabaseError);
  EXPECT_THROW(db.put_config("t", sample_key(), sample_config()), tj::TuningDatabaseError);
}

TEST(TuningDatabase, ConcurrentWritersKeepEveryRow) {
  const std::string path = temp_dir() + "/concurrent.db";
  constexpr int kWriters = 4, kRows = 25;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        tj::TuningDatabase db(path);
        for (int r = 0; r < kRows; ++r) {
          db.put_config("t", {tj::SqlValue::of_int(w * 1000 + r), tj::SqlValue::of_text("torch.float16")},
                        sample_config());
        }
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  tj::TuningDatabase db(path);
  for (int w = 0; w < kWriters; ++w) {
    for (int r = 0; r < kRows; ++r) {
      EXPECT_TRUE(db.get_config("t", {tj::SqlValue::of_int(w * 1000 + r), tj::SqlValue::of_text("torch.float16")}));
    }
  }
}
