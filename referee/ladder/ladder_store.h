// A ladder's state in its SQLite database (DIR/ladder.db): users, bots and their versions,
// rounds, every finished match (its index entry, the same line a tournament's index holds) and
// the ratings with their history. The schema has a version (PRAGMA user_version) and
// migrations; a database made by a newer referee is refused. Every change is one transaction,
// so a crash leaves each change whole or absent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "ladder/access_tokens.h"
#include "ladder/sqlite_db.h"
#include "tournament/standings.h"

namespace allfives::referee {

// The ladder folder's files: the definition as initialised, the database, the versions' files,
// the gate's reports and the rounds' tournament folders.
inline constexpr const char* kLadderDefinition = "ladder.txtpb";
inline constexpr const char* kLadderDatabase = "ladder.db";
inline constexpr const char* kLadderBots = "bots";
inline constexpr const char* kLadderChecks = "checks";
inline constexpr const char* kLadderRounds = "rounds";
// An empty folder, the working folder of everything the ladder runs: a bot's relative
// arguments name nothing there, so its sandbox binds nothing of the ladder's for them.
inline constexpr const char* kLadderEmpty = "empty";

// A bot's name in a ladder: letters, digits, '_' and '-', at most this long; a version is
// NAME@N.
inline constexpr size_t kMaxLadderBotName = 24;
bool check_ladder_bot_name(const std::string& name, std::string* error);

// The state of a version: waiting for its gate (check-bot), playing, refused by the gate, or
// retired by an organiser (it keeps its record and plays no more).
enum class VersionState { kChecking, kActive, kRefused, kRetired };
const char* state_name(VersionState s);

struct Version {
  int64_t id = 0;
  std::string bot;  // NAME
  int number = 0;   // N of NAME@N
  std::string user;
  VersionState state = VersionState::kChecking;
  std::vector<std::string> argv;
  std::string folder;
  std::string report;  // the gate's report
  int64_t matches = 0;
  int64_t submitted_at = 0;  // seconds since the epoch
  std::string name() const { return bot + "@" + std::to_string(number); }
};

struct RatingRow {
  std::string version;  // NAME@N
  std::string user;
  VersionState state = VersionState::kActive;
  int rank = 0;
  double elo = 0, ci95 = 0;
  int64_t matches = 0, wins = 0, losses = 0, draws = 0, forfeits = 0;
  int64_t last_played = 0;  // its last match's end, seconds since the epoch; 0: none
};

struct User {
  int64_t id = 0;
  std::string name;
  bool organiser = false;  // may retire versions and reset tokens from the served pages
};

struct HistoryPoint {
  int64_t matches = 0;
  double elo = 0, ci95 = 0;
  int64_t at = 0;  // seconds since the epoch
};

// A round's folder name under DIR/rounds: its id on six digits ("000012").
std::string round_folder(int64_t round);

// A recorded match with the round it was played in.
struct RecordedMatch {
  int64_t round = 0;
  v1::IndexEntry entry;
};

struct Round {
  int64_t id = 0;
  int64_t for_version = 0;
  bool placement = false;
  uint64_t seed = 0;
  std::vector<int64_t> versions;  // the candidate first
  std::string slurm_job;          // the job array playing it (ladder run --slurm), or ""
};

class LadderStore {
 public:
  // The schema version this referee writes.
  static constexpr int kSchemaVersion = 3;

  // Opens DIR/ladder.db, applying the migrations it lacks (creating it if `create`).
  static std::unique_ptr<LadderStore> open(const std::string& dir, bool create);
  SqliteDb& db() { return *db_; }
  // "" if PRAGMA integrity_check finds the database whole, else what it found.
  std::string integrity_problem();
  const std::string& dir() const { return dir_; }

  // A new user; returns its token ("ID.HEX"), shown once. Throws if the name is taken.
  std::string add_user(const std::string& name, bool organiser = false);
  // A new token for the user `name` (the old one stops working), or nothing if no such user.
  std::optional<std::string> reset_token(const std::string& name);
  // The user a token belongs to (its id), or nothing.
  std::optional<int64_t> user_of_token(const std::string& token);
  std::optional<User> user(int64_t id);
  std::vector<User> users();  // by name
  // When `user`'s versions submitted at or after `since` were submitted, oldest first.
  std::vector<int64_t> submissions_since(int64_t user, int64_t since);

  // A new version of `bot` for `user`, number one more than the bot's last, its files moved
  // from `staged` into DIR/bots/NAME@N in the same step. Throws if the bot is someone else's.
  Version add_version(int64_t user, const std::string& bot, const std::string& staged,
                      const std::vector<std::string>& argv_in_staged);
  void set_state(int64_t version, VersionState s, const std::string& report);
  std::optional<Version> version(const std::string& name);  // NAME@N
  std::vector<Version> versions();                          // by id
  std::vector<Version> versions_in(VersionState s);
  std::vector<Version> versions_of_bot(const std::string& bot);    // by number
  std::vector<std::string> bots_of_user(const std::string& user);  // by name
  // Every recorded match a version of `bot` played, in import order.
  void for_each_match_of_bot(const std::string& bot,
                             const std::function<void(v1::IndexEntry&&)>& f);
  // The version's last `limit` recorded matches, the newest first.
  std::vector<RecordedMatch> recent_matches(int64_t version, int limit);

  // Rounds: begun, then ended; one left unended was cut off (resumed by the next run).
  int64_t begin_round(const Round& r);
  void end_round(int64_t round, const std::string& note);
  void set_round_job(int64_t round, const std::string& job);
  std::optional<Round> unfinished_round();
  // The pairs of versions (ids, smaller first) that met in the last ended round.
  std::set<std::pair<int64_t, int64_t>> last_round_pairs();
  int64_t rounds_of(int64_t version);

  // One finished match of round `round` in one transaction: false if it was imported before.
  bool import_match(int64_t round, const v1::IndexEntry& e);
  int64_t match_count();
  // Every imported match's entry, in import order.
  void for_each_match(const std::function<void(v1::IndexEntry&&)>& f);

  // The fit's rows replace the ratings; a version whose matches reached the next multiple of
  // `history_every` gets a history point. One transaction.
  void save_ratings(const Standings& s, int history_every);
  std::vector<RatingRow> leaderboard();
  std::vector<HistoryPoint> history(int64_t version);

 private:
  LadderStore(std::unique_ptr<SqliteDb> db, std::string dir)
      : db_(std::move(db)), dir_(std::move(dir)) {}
  void migrate();
  std::map<std::string, int64_t> version_ids();
  std::unique_ptr<SqliteDb> db_;
  std::string dir_;
};

}  // namespace allfives::referee
