// Reading a tournament definition (proto/allfives/v1/tournament.proto, in protobuf text
// format) and checking it completely before anything runs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "allfives/core/types.h"
#include "allfives/v1/tournament.pb.h"
#include "bots/bot_spec.h"
#include "match/match_terms.h"
#include "tournament/statistics.h"

namespace allfives::referee {

// A definition that passed every check, with defaults filled in.
struct TournamentDef {
  v1::Tournament proto;       // as written, defaults filled in
  std::string path;           // the file it came from
  std::vector<BotSpec> bots;  // in file order; commands resolved to absolute paths
  Config config;
  TimeControl time;
  std::chrono::milliseconds startup_timeout{wire::kDefaultStartupTimeout};
  int concurrency = 1;
  std::string out_dir;
  // Identifies what decides the results (bots, format, seeds, limits), not where or how fast
  // they are played: resume and merge refuse to mix tournaments with different hashes.
  std::string hash;
  // Gauntlet (gauntlet.h): candidate[i] marks bots[i] as a candidate; all false: round robin.
  std::vector<bool> candidate;
  // Per bot, its time control: the tournament's unless the bot has its own (time odds).
  std::vector<TimeControl> bot_time;
  // The SPRT (sprt.h), if the file has an sprt block.
  struct SprtSetup {
    SprtParams params;
    uint32_t max_pairs = 0;    // 0: no maximum but the schedule's end
    int candidate = 0;         // index in bots of the bot under test
    std::vector<int> against;  // indexes in bots of its references, one test each
  };
  std::optional<SprtSetup> sprt;
  // The hashes of this definition with only its first k bots, for every k below bots.size()
  // that is still a tournament: a folder played with fewer bots may be resumed with bots
  // appended (its matches keep their ids, seeds and results; see schedule.h).
  std::vector<std::string> earlier_hashes;
};

// Limits that keep a hostile or mistyped file from exhausting memory before anything runs.
inline constexpr uint64_t kMaxScheduleMatches = 1'000'000;  // matches in a whole schedule
inline constexpr size_t kMaxTournamentFileBytes = size_t{1} << 20;
inline constexpr uint32_t kMaxMatchesPerPairing = 100'000;
inline constexpr uint32_t kMaxMoveTimeMs = 600'000;     // 10 minutes per decision
inline constexpr uint32_t kMaxTimeBankMs = 86'400'000;  // a day per match
inline constexpr uint32_t kMaxStartupTimeoutMs = 600'000;
inline constexpr uint32_t kMaxConcurrency = 1024;
// A tournament's name names its default output folder (tournaments-out/NAME) and is in every
// index line: the characters of a bot name (check_safe_name), at most this many.
inline constexpr size_t kMaxTournamentNameLength = 64;
inline constexpr uint32_t kMaxCpuPercent = 6400;  // a bot's CPU quota: 64 CPUs

struct LoadOptions {
  // false: bot programs and read_only_dirs are neither looked up nor checked (`referee verify`
  // and `referee standings` read the copy of the file in an output folder, whose relative
  // paths start elsewhere).
  bool check_programs = true;
};

// The text of a tournament file, or of an output folder's copy of one (output_folder.h): a
// regular file of at most kMaxTournamentFileBytes, the one way either is read. False and why,
// naming the file, if not.
// `what` names the kind of file in the message for one that cannot be opened.
bool read_tournament_text(const std::string& path, std::string& text, std::string* error,
                          const char* what = "the tournament file");

// Reads and checks the file. On error returns false with "FILE:LINE: what was expected".
// `adjust` (optional) changes the message as parsed, before any check or default: command-line
// flags that stand for fields of the file.
bool load_tournament(const std::string& path, TournamentDef& out, std::string* error,
                     const std::function<void(v1::Tournament&)>& adjust = {},
                     const LoadOptions& options = {});
// load_tournament of a file's text already read; `path` names it in messages and is the folder
// relative paths are read from.
bool load_tournament_text(const std::string& text, const std::string& path, TournamentDef& out,
                          std::string* error,
                          const std::function<void(v1::Tournament&)>& adjust = {},
                          const LoadOptions& options = {});

// Sets the base seed of a loaded definition whose file gives none (see settle_seed in
// tournament_runner.h) and recomputes its hashes, which depend on the seed.
void set_seed(TournamentDef& t, uint64_t seed);

// The definition with only its first bots whose hash is `hash` (one of t.earlier_hashes): the
// tournament a folder played before bots were appended. Its schedule holds the matches played
// then, each with the id, seed, seats and ordinal it was played with. Nothing if no earlier
// definition has that hash.
std::optional<TournamentDef> earlier_definition(const TournamentDef& t, const std::string& hash);

// Seat rotations in one deal group: k for k individual players, 2 for partnerships.
int seat_rotations(Format f);
// Bots in one pairing: k for k individual players, 2 for partnerships.
int bots_per_pairing(Format f);

// The hash of a definition as load_tournament computes it (what decides results only).
std::string definition_hash(const v1::Tournament& p);

}  // namespace allfives::referee
