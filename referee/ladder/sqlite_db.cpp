#include "ladder/sqlite_db.h"

#include <sqlite3.h>

namespace allfives::referee {

// How long a connection waits for another process's write lock before it fails.
constexpr int kBusyTimeoutMs = 30'000;

std::unique_ptr<SqliteDb> SqliteDb::open(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw DbError(path + ": cannot open the database: " + why);
  }
  std::unique_ptr<SqliteDb> out(new SqliteDb(db, path));
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
  out->exec("PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  return out;
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

void SqliteDb::fail(const std::string& what) const {
  throw DbError(path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

void SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw DbError(path_ + ": " + why);
  }
}

Statement SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr) != SQLITE_OK)
    fail("cannot prepare \"" + std::string(sql.substr(0, 60)) + "\"");
  return Statement(this, st);
}

int64_t SqliteDb::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}
int SqliteDb::changes() const {
  return sqlite3_changes(db_);
}

Statement::~Statement() {
  sqlite3_finalize(st_);
}

void Statement::check(int rc, const char* what) {
  if (rc != SQLITE_OK) db_->fail(what);
}

Statement& Statement::bind(int i, int64_t v) {
  check(sqlite3_bind_int64(st_, i, v), "bind");
  return *this;
}
Statement& Statement::bind(int i, double v) {
  check(sqlite3_bind_double(st_, i, v), "bind");
  return *this;
}
Statement& Statement::bind(int i, std::string_view text) {
  check(sqlite3_bind_text(st_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT),
        "bind");
  return *this;
}
Statement& Statement::bind_blob(int i, std::string_view bytes) {
  check(sqlite3_bind_blob(st_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT),
        "bind");
  return *this;
}
Statement& Statement::bind_null(int i) {
  check(sqlite3_bind_null(st_, i), "bind");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(std::string("\"") + std::string(sqlite3_sql(st_)).substr(0, 60) + "\" failed");
}

void Statement::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

int64_t Statement::integer(int col) const {
  return sqlite3_column_int64(st_, col);
}
double Statement::real(int col) const {
  return sqlite3_column_double(st_, col);
}
std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(st_, col);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(st_, col)))
           : std::string();
}
std::string Statement::blob(int col) const {
  const void* p = sqlite3_column_blob(st_, col);
  return p ? std::string(static_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(st_, col)))
           : std::string();
}
bool Statement::is_null(int col) const {
  return sqlite3_column_type(st_, col) == SQLITE_NULL;
}

Transaction::Transaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}
Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace allfives::referee
