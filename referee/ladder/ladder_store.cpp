#include "ladder/ladder_store.h"

#include <filesystem>
#include <system_error>

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// Migration i takes a database from schema version i to i + 1.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE users(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  salt BLOB NOT NULL,
  token_hash BLOB NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE bots(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id));
CREATE TABLE versions(
  id INTEGER PRIMARY KEY,
  bot_id INTEGER NOT NULL REFERENCES bots(id),
  number INTEGER NOT NULL,
  argv BLOB NOT NULL,
  folder TEXT NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('checking', 'active', 'refused', 'retired')),
  report TEXT NOT NULL DEFAULT '',
  submitted_at INTEGER NOT NULL,
  matches INTEGER NOT NULL DEFAULT 0,
  UNIQUE(bot_id, number));
CREATE TABLE rounds(
  id INTEGER PRIMARY KEY,
  for_version INTEGER NOT NULL REFERENCES versions(id),
  placement INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  note TEXT NOT NULL DEFAULT '');
CREATE TABLE round_versions(
  round_id INTEGER NOT NULL REFERENCES rounds(id),
  position INTEGER NOT NULL,
  version_id INTEGER NOT NULL REFERENCES versions(id),
  PRIMARY KEY(round_id, position)) WITHOUT ROWID;
CREATE TABLE matches(
  id INTEGER PRIMARY KEY,
  round_id INTEGER NOT NULL REFERENCES rounds(id),
  match_id TEXT NOT NULL,
  entry BLOB NOT NULL,
  finished_at INTEGER NOT NULL,
  UNIQUE(round_id, match_id));
CREATE TABLE match_versions(
  version_id INTEGER NOT NULL REFERENCES versions(id),
  match_id INTEGER NOT NULL REFERENCES matches(id),
  PRIMARY KEY(version_id, match_id)) WITHOUT ROWID;
CREATE TABLE ratings(
  version_id INTEGER PRIMARY KEY REFERENCES versions(id),
  rank INTEGER NOT NULL, elo REAL NOT NULL, ci95 REAL NOT NULL,
  matches INTEGER NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL,
  draws INTEGER NOT NULL, forfeits INTEGER NOT NULL);
CREATE TABLE rating_history(
  version_id INTEGER NOT NULL REFERENCES versions(id),
  matches INTEGER NOT NULL,
  elo REAL NOT NULL, ci95 REAL NOT NULL, at INTEGER NOT NULL,
  PRIMARY KEY(version_id, matches)) WITHOUT ROWID;
)sql",
    // The Slurm job array playing a round (ladder run --slurm), so a rerun finds it.
    R"sql(
ALTER TABLE rounds ADD COLUMN slurm_job TEXT NOT NULL DEFAULT '';
)sql",
    // Organisers: users who may retire versions and reset tokens from the served pages.
    R"sql(
ALTER TABLE users ADD COLUMN organiser INTEGER NOT NULL DEFAULT 0;
)sql",
};
static_assert(std::size(kMigrations) == LadderStore::kSchemaVersion);

int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& w : argv) out += w + '\0';
  return out;
}
std::vector<std::string> split_argv(const std::string& blob) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t zero; (zero = blob.find('\0', from)) != std::string::npos; from = zero + 1)
    out.push_back(blob.substr(from, zero - from));
  return out;
}

VersionState state_of(const std::string& s) {
  if (s == "active") return VersionState::kActive;
  if (s == "refused") return VersionState::kRefused;
  if (s == "retired") return VersionState::kRetired;
  return VersionState::kChecking;
}

constexpr const char* kVersionColumns =
    "SELECT v.id, b.name, v.number, u.name, v.state, v.argv, v.folder, v.report, v.matches, "
    "v.submitted_at FROM versions v JOIN bots b ON b.id = v.bot_id JOIN users u ON u.id = "
    "b.user_id ";

Version read_version(const Statement& st) {
  Version v;
  v.id = st.integer(0);
  v.bot = st.text(1);
  v.number = static_cast<int>(st.integer(2));
  v.user = st.text(3);
  v.state = state_of(st.text(4));
  v.argv = split_argv(st.blob(5));
  v.folder = st.text(6);
  v.report = st.text(7);
  v.matches = st.integer(8);
  v.submitted_at = st.integer(9);
  return v;
}

}  // namespace

std::string round_folder(int64_t round) {
  std::string digits = std::to_string(round);
  return std::string(digits.size() < 6 ? 6 - digits.size() : 0, '0') + digits;
}

bool check_ladder_bot_name(const std::string& name, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "bot name '" + name + "' " + why;
    return false;
  };
  if (name.empty() || name.size() > kMaxLadderBotName)
    return fail("must have 1 to " + std::to_string(kMaxLadderBotName) + " characters");
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      return fail("may hold only letters, digits, _ and -");
  if (!std::isalnum(static_cast<unsigned char>(name[0])))
    return fail("must start with a letter or a digit");
  return true;
}

const char* state_name(VersionState s) {
  switch (s) {
    case VersionState::kChecking:
      return "checking";
    case VersionState::kActive:
      return "active";
    case VersionState::kRefused:
      return "refused";
    case VersionState::kRetired:
      return "retired";
  }
  return "checking";
}

std::unique_ptr<LadderStore> LadderStore::open(const std::string& dir, bool create) {
  const std::string path = (fs::path(dir) / kLadderDatabase).string();
  std::error_code ec;
  if (!create && !fs::exists(path, ec))
    throw DbError(dir + " is not a ladder folder (no " + kLadderDatabase +
                  "); make one with `referee ladder init DIR LADDER_FILE`");
  std::unique_ptr<LadderStore> s(new LadderStore(
      SqliteDb::open(path, create), fs::absolute(dir, ec).lexically_normal().string()));
  s->migrate();
  return s;
}

void LadderStore::migrate() {
  Statement get = db_->prepare("PRAGMA user_version");
  get.step();
  const int64_t at = get.integer(0);
  if (at > kSchemaVersion)
    throw DbError(db_->path() + " has schema version " + std::to_string(at) +
                  ", made by a newer referee; this one knows versions up to " +
                  std::to_string(kSchemaVersion));
  for (int64_t v = at; v < kSchemaVersion; ++v) {
    Transaction t(*db_);
    db_->exec(kMigrations[v]);
    db_->exec("PRAGMA user_version = " + std::to_string(v + 1));
    t.commit();
  }
}

std::string LadderStore::integrity_problem() {
  Statement st = db_->prepare("PRAGMA integrity_check");
  std::string found;
  while (st.step())
    if (st.text(0) != "ok") found += "\n  " + st.text(0);
  return found.empty() ? "" : db_->path() + " is damaged (PRAGMA integrity_check):" + found;
}

std::string LadderStore::add_user(const std::string& name, bool organiser) {
  const std::string secret = make_token();
  const TokenHash h = hash_token(secret);
  Transaction t(*db_);
  Statement exists = db_->prepare("SELECT 1 FROM users WHERE name = ?");
  if (exists.bind(1, name).step()) throw DbError("a user named '" + name + "' exists already");
  db_->prepare(
         "INSERT INTO users(name, salt, token_hash, created_at, organiser) VALUES(?, ?, ?, ?, ?)")
      .bind(1, name)
      .bind_blob(2, h.salt)
      .bind_blob(3, h.hash)
      .bind(4, now_seconds())
      .bind(5, organiser ? 1 : 0)
      .run();
  const int64_t id = db_->last_insert_id();
  t.commit();
  return std::to_string(id) + "." + secret;
}

std::optional<std::string> LadderStore::reset_token(const std::string& name) {
  const std::string secret = make_token();
  const TokenHash h = hash_token(secret);
  Transaction t(*db_);
  Statement find = db_->prepare("SELECT id FROM users WHERE name = ?");
  if (!find.bind(1, name).step()) return std::nullopt;
  const int64_t id = find.integer(0);
  db_->prepare("UPDATE users SET salt = ?, token_hash = ? WHERE id = ?")
      .bind_blob(1, h.salt)
      .bind_blob(2, h.hash)
      .bind(3, id)
      .run();
  t.commit();
  return std::to_string(id) + "." + secret;
}

std::optional<User> LadderStore::user(int64_t id) {
  Statement st = db_->prepare("SELECT id, name, organiser FROM users WHERE id = ?");
  if (!st.bind(1, id).step()) return std::nullopt;
  return User{st.integer(0), st.text(1), st.integer(2) != 0};
}

std::vector<User> LadderStore::users() {
  std::vector<User> out;
  Statement st = db_->prepare("SELECT id, name, organiser FROM users ORDER BY name");
  while (st.step()) out.push_back({st.integer(0), st.text(1), st.integer(2) != 0});
  return out;
}

std::vector<int64_t> LadderStore::submissions_since(int64_t user, int64_t since) {
  std::vector<int64_t> out;
  Statement st = db_->prepare(
      "SELECT v.submitted_at FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.user_id = ? "
      "AND v.submitted_at >= ? ORDER BY v.submitted_at");
  st.bind(1, user).bind(2, since);
  while (st.step()) out.push_back(st.integer(0));
  return out;
}

std::optional<int64_t> LadderStore::user_of_token(const std::string& token) {
  const size_t dot = token.find('.');
  if (dot == std::string::npos || dot == 0 || dot > 18) return std::nullopt;
  int64_t id = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (token[i] < '0' || token[i] > '9') return std::nullopt;
    id = id * 10 + (token[i] - '0');
  }
  Statement st = db_->prepare("SELECT salt, token_hash FROM users WHERE id = ?");
  if (!st.bind(1, id).step()) return std::nullopt;
  if (!token_matches(token.substr(dot + 1), TokenHash{st.blob(0), st.blob(1)})) return std::nullopt;
  return id;
}

Version LadderStore::add_version(int64_t user, const std::string& bot, const std::string& staged,
                                 const std::vector<std::string>& argv_in_staged) {
  Transaction t(*db_);
  Statement find = db_->prepare("SELECT id, user_id FROM bots WHERE name = ?");
  int64_t bot_id = 0;
  if (find.bind(1, bot).step()) {
    if (find.integer(1) != user)
      throw DbError("the bot '" + bot + "' belongs to another user; choose another name");
    bot_id = find.integer(0);
  } else {
    db_->prepare("INSERT INTO bots(name, user_id) VALUES(?, ?)").bind(1, bot).bind(2, user).run();
    bot_id = db_->last_insert_id();
  }
  Statement last = db_->prepare("SELECT COALESCE(MAX(number), 0) FROM versions WHERE bot_id = ?");
  last.bind(1, bot_id).step();
  Version v;
  v.bot = bot;
  v.number = static_cast<int>(last.integer(0)) + 1;
  v.folder = (fs::path(dir_) / kLadderBots / v.name()).string();
  for (const std::string& w : argv_in_staged)
    v.argv.push_back(w.starts_with(staged + "/") ? v.folder + w.substr(staged.size()) : w);
  // A folder left by a submission that died before its commit holds nothing the database knows.
  std::error_code ec;
  fs::remove_all(v.folder, ec);
  fs::rename(staged, v.folder, ec);
  if (ec) throw DbError(v.folder + ": " + ec.message());
  v.submitted_at = now_seconds();
  db_->prepare(
         "INSERT INTO versions(bot_id, number, argv, folder, state, submitted_at) "
         "VALUES(?, ?, ?, ?, 'checking', ?)")
      .bind(1, bot_id)
      .bind(2, v.number)
      .bind_blob(3, join_argv(v.argv))
      .bind(4, v.folder)
      .bind(5, v.submitted_at)
      .run();
  v.id = db_->last_insert_id();
  t.commit();
  return v;
}

void LadderStore::set_state(int64_t version, VersionState s, const std::string& report) {
  Transaction t(*db_);
  Statement st = db_->prepare(report.empty() ? "UPDATE versions SET state = ? WHERE id = ?"
                                             : "UPDATE versions SET state = ?, report = ? "
                                               "WHERE id = ?");
  st.bind(1, state_name(s));
  if (!report.empty()) st.bind(2, report);
  st.bind(report.empty() ? 2 : 3, version).run();
  t.commit();
}

std::optional<Version> LadderStore::version(const std::string& name) {
  const size_t at = name.rfind('@');
  if (at == std::string::npos) return std::nullopt;
  int number = 0;
  try {
    number = std::stoi(name.substr(at + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  Statement st = db_->prepare(std::string(kVersionColumns) + "WHERE b.name = ? AND v.number = ?");
  if (!st.bind(1, name.substr(0, at)).bind(2, number).step()) return std::nullopt;
  return read_version(st);
}

std::vector<Version> LadderStore::versions() {
  std::vector<Version> out;
  Statement st = db_->prepare(std::string(kVersionColumns) + "ORDER BY v.id");
  while (st.step()) out.push_back(read_version(st));
  return out;
}

std::vector<Version> LadderStore::versions_in(VersionState s) {
  std::vector<Version> out;
  Statement st = db_->prepare(std::string(kVersionColumns) + "WHERE v.state = ? ORDER BY v.id");
  st.bind(1, state_name(s));
  while (st.step()) out.push_back(read_version(st));
  return out;
}

std::vector<Version> LadderStore::versions_of_bot(const std::string& bot) {
  std::vector<Version> out;
  Statement st = db_->prepare(std::string(kVersionColumns) + "WHERE b.name = ? ORDER BY v.number");
  st.bind(1, bot);
  while (st.step()) out.push_back(read_version(st));
  return out;
}

std::vector<std::string> LadderStore::bots_of_user(const std::string& user) {
  std::vector<std::string> out;
  Statement st = db_->prepare(
      "SELECT b.name FROM bots b JOIN users u ON u.id = b.user_id WHERE u.name = ? ORDER BY "
      "b.name");
  st.bind(1, user);
  while (st.step()) out.push_back(st.text(0));
  return out;
}

void LadderStore::for_each_match_of_bot(const std::string& bot,
                                        const std::function<void(v1::IndexEntry&&)>& f) {
  Statement st = db_->prepare(
      "SELECT m.entry FROM matches m WHERE m.id IN (SELECT mv.match_id FROM match_versions mv "
      "JOIN versions v ON v.id = mv.version_id JOIN bots b ON b.id = v.bot_id WHERE b.name = ?) "
      "ORDER BY m.id");
  st.bind(1, bot);
  while (st.step()) {
    v1::IndexEntry e;
    if (e.ParseFromString(st.blob(0))) f(std::move(e));
  }
}

std::vector<RecordedMatch> LadderStore::recent_matches(int64_t version, int limit) {
  std::vector<RecordedMatch> out;
  Statement st = db_->prepare(
      "SELECT m.round_id, m.entry FROM match_versions mv JOIN matches m ON m.id = mv.match_id "
      "WHERE mv.version_id = ? ORDER BY mv.match_id DESC LIMIT ?");
  st.bind(1, version).bind(2, static_cast<int64_t>(limit));
  while (st.step()) {
    RecordedMatch m;
    m.round = st.integer(0);
    if (m.entry.ParseFromString(st.blob(1))) out.push_back(std::move(m));
  }
  return out;
}

int64_t LadderStore::begin_round(const Round& r) {
  Transaction t(*db_);
  db_->prepare("INSERT INTO rounds(for_version, placement, seed, started_at) VALUES(?, ?, ?, ?)")
      .bind(1, r.for_version)
      .bind(2, r.placement ? 1 : 0)
      .bind(3, static_cast<int64_t>(r.seed))
      .bind(4, now_seconds())
      .run();
  const int64_t id = db_->last_insert_id();
  Statement add =
      db_->prepare("INSERT INTO round_versions(round_id, position, version_id) VALUES(?, ?, ?)");
  for (size_t i = 0; i < r.versions.size(); ++i) {
    add.reset();
    add.bind(1, id).bind(2, static_cast<int64_t>(i)).bind(3, r.versions[i]).run();
  }
  t.commit();
  return id;
}

void LadderStore::end_round(int64_t round, const std::string& note) {
  Transaction t(*db_);
  db_->prepare("UPDATE rounds SET ended_at = ?, note = ? WHERE id = ?")
      .bind(1, now_seconds())
      .bind(2, note)
      .bind(3, round)
      .run();
  t.commit();
}

void LadderStore::set_round_job(int64_t round, const std::string& job) {
  Transaction t(*db_);
  db_->prepare("UPDATE rounds SET slurm_job = ? WHERE id = ?").bind(1, job).bind(2, round).run();
  t.commit();
}

std::optional<Round> LadderStore::unfinished_round() {
  Statement st = db_->prepare(
      "SELECT id, for_version, placement, seed, slurm_job FROM rounds WHERE ended_at IS NULL "
      "ORDER BY id LIMIT 1");
  if (!st.step()) return std::nullopt;
  Round r{
      st.integer(0), st.integer(1), st.integer(2) != 0, static_cast<uint64_t>(st.integer(3)), {},
      st.text(4)};
  Statement v =
      db_->prepare("SELECT version_id FROM round_versions WHERE round_id = ? ORDER BY position");
  v.bind(1, r.id);
  while (v.step()) r.versions.push_back(v.integer(0));
  return r;
}

std::set<std::pair<int64_t, int64_t>> LadderStore::last_round_pairs() {
  std::set<std::pair<int64_t, int64_t>> out;
  Statement st = db_->prepare(
      "SELECT version_id FROM round_versions WHERE round_id = (SELECT MAX(id) FROM rounds "
      "WHERE ended_at IS NOT NULL) ORDER BY position");
  std::vector<int64_t> ids;
  while (st.step()) ids.push_back(st.integer(0));
  // A round pairs its candidate (first) with each opponent.
  for (size_t i = 1; i < ids.size(); ++i)
    out.insert({std::min(ids[0], ids[i]), std::max(ids[0], ids[i])});
  return out;
}

int64_t LadderStore::rounds_of(int64_t version) {
  Statement st = db_->prepare("SELECT COUNT(*) FROM rounds WHERE for_version = ?");
  st.bind(1, version).step();
  return st.integer(0);
}

std::map<std::string, int64_t> LadderStore::version_ids() {
  std::map<std::string, int64_t> out;
  for (const Version& v : versions()) out[v.name()] = v.id;
  return out;
}

bool LadderStore::import_match(int64_t round, const v1::IndexEntry& e) {
  Transaction t(*db_);
  db_->prepare(
         "INSERT OR IGNORE INTO matches(round_id, match_id, entry, finished_at) "
         "VALUES(?, ?, ?, ?)")
      .bind(1, round)
      .bind(2, e.match().match_id())
      .bind_blob(3, e.SerializeAsString())
      .bind(4, now_seconds())
      .run();
  if (db_->changes() == 0) return false;
  const int64_t match = db_->last_insert_id();
  std::set<std::string> seated(e.match().seat_bots().begin(), e.match().seat_bots().end());
  Statement find = db_->prepare(
      "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = ? AND "
      "v.number = ?");
  Statement link = db_->prepare("INSERT INTO match_versions(version_id, match_id) VALUES(?, ?)");
  Statement count = db_->prepare("UPDATE versions SET matches = matches + 1 WHERE id = ?");
  for (const std::string& name : seated) {
    const size_t at = name.rfind('@');
    if (at == std::string::npos) continue;
    find.reset();
    find.bind(1, name.substr(0, at))
        .bind(2, static_cast<int64_t>(std::atoll(name.c_str() + at + 1)));
    if (!find.step()) continue;
    const int64_t v = find.integer(0);
    link.reset();
    link.bind(1, v).bind(2, match).run();
    count.reset();
    count.bind(1, v).run();
  }
  t.commit();
  return true;
}

int64_t LadderStore::match_count() {
  Statement st = db_->prepare("SELECT COUNT(*) FROM matches");
  st.step();
  return st.integer(0);
}

void LadderStore::for_each_match(const std::function<void(v1::IndexEntry&&)>& f) {
  Statement st = db_->prepare("SELECT entry FROM matches ORDER BY id");
  while (st.step()) {
    v1::IndexEntry e;
    if (e.ParseFromString(st.blob(0))) f(std::move(e));
  }
}

void LadderStore::save_ratings(const Standings& s, int history_every) {
  const std::map<std::string, int64_t> ids = version_ids();
  Transaction t(*db_);
  db_->exec("DELETE FROM ratings");
  Statement put = db_->prepare(
      "INSERT INTO ratings(version_id, rank, elo, ci95, matches, wins, losses, draws, forfeits) "
      "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Statement last =
      db_->prepare("SELECT COALESCE(MAX(matches), 0) FROM rating_history WHERE version_id = ?");
  Statement point = db_->prepare(
      "INSERT OR IGNORE INTO rating_history(version_id, matches, elo, ci95, at) "
      "VALUES(?, ?, ?, ?, ?)");
  for (size_t i = 0; i < s.bots.size(); ++i) {
    const BotStanding& b = s.bots[i];
    const auto id = ids.find(b.name);
    if (id == ids.end()) continue;
    put.reset();
    put.bind(1, id->second)
        .bind(2, static_cast<int64_t>(i + 1))
        .bind(3, b.elo)
        .bind(4, b.elo_ci95)
        .bind(5, b.matches)
        .bind(6, b.wins)
        .bind(7, b.losses)
        .bind(8, b.draws)
        .bind(9, b.forfeits_total)
        .run();
    last.reset();
    last.bind(1, id->second).step();
    if (b.matches >= last.integer(0) + history_every) {
      point.reset();
      point.bind(1, id->second)
          .bind(2, b.matches)
          .bind(3, b.elo)
          .bind(4, b.elo_ci95)
          .bind(5, now_seconds())
          .run();
    }
  }
  t.commit();
}

std::vector<RatingRow> LadderStore::leaderboard() {
  std::vector<RatingRow> out;
  Statement st = db_->prepare(
      "SELECT b.name || '@' || v.number, u.name, v.state, r.rank, r.elo, r.ci95, r.matches, "
      "r.wins, r.losses, r.draws, r.forfeits, (SELECT m.finished_at FROM matches m WHERE m.id = "
      "(SELECT MAX(mv.match_id) FROM match_versions mv WHERE mv.version_id = v.id)) FROM ratings "
      "r JOIN versions v ON v.id = r.version_id JOIN bots b ON b.id = v.bot_id JOIN users u ON "
      "u.id = b.user_id ORDER BY r.rank");
  while (st.step()) {
    RatingRow r;
    r.version = st.text(0);
    r.user = st.text(1);
    r.state = state_of(st.text(2));
    r.rank = static_cast<int>(st.integer(3));
    r.elo = st.real(4);
    r.ci95 = st.real(5);
    r.matches = st.integer(6);
    r.wins = st.integer(7);
    r.losses = st.integer(8);
    r.draws = st.integer(9);
    r.forfeits = st.integer(10);
    r.last_played = st.integer(11);  // NULL (never played) reads as 0
    out.push_back(r);
  }
  return out;
}

std::vector<HistoryPoint> LadderStore::history(int64_t version) {
  std::vector<HistoryPoint> out;
  Statement st = db_->prepare(
      "SELECT matches, elo, ci95, at FROM rating_history WHERE version_id = ? ORDER BY matches");
  st.bind(1, version);
  while (st.step()) out.push_back({st.integer(0), st.real(1), st.real(2), st.integer(3)});
  return out;
}

}  // namespace allfives::referee
