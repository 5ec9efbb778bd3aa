// A thin wrapper of SQLite's C API (libsqlite3-dev): a connection, prepared statements and
// transactions, every failure thrown as a DbError naming the database file. Written here
// rather than taken from libsqlitecpp-dev: the ladder needs a dozen calls, its own error words
// and a busy timeout on every connection, which is about 150 lines, less than learning and
// pinning another library's exception and lifetime rules.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace allfives::referee {

struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Statement;

class SqliteDb {
 public:
  // Opens (creating it if `create`) the database at `path` with foreign keys on, WAL journal,
  // synchronous NORMAL (a commit survives a crash of this process; WAL keeps the file whole on
  // power loss) and a busy timeout, so several processes (a ladder run, a submission) share it.
  static std::unique_ptr<SqliteDb> open(const std::string& path, bool create);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs statements that return no rows (several, separated by ';').
  void exec(const std::string& sql);
  Statement prepare(std::string_view sql);
  int64_t last_insert_id() const;
  int changes() const;  // rows changed by the last statement
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  friend class Statement;
  friend class Transaction;
  sqlite3* db_;
  std::string path_;
};

// One prepared statement; binds count from 1, columns from 0.
class Statement {
 public:
  Statement(Statement&& o) noexcept : db_(o.db_), st_(o.st_) { o.st_ = nullptr; }
  Statement& operator=(Statement&&) = delete;
  ~Statement();
  Statement& bind(int i, int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view text);
  Statement& bind(int i, const char* text) { return bind(i, std::string_view(text)); }
  Statement& bind_blob(int i, std::string_view bytes);
  Statement& bind_null(int i);
  // The next row: true; false once there is none.
  bool step();
  // step() for a statement that returns no rows.
  void run() { step(); }
  void reset();  // to run again with new binds
  int64_t integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  std::string blob(int col) const;
  bool is_null(int col) const;

 private:
  friend class SqliteDb;
  Statement(const SqliteDb* db, sqlite3_stmt* st) : db_(db), st_(st) {}
  void check(int rc, const char* what);
  const SqliteDb* db_;
  sqlite3_stmt* st_;
};

// BEGIN IMMEDIATE (the write lock taken at once, so two writers never deadlock) ... COMMIT;
// rolled back if destroyed uncommitted (an exception on the way).
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace allfives::referee
