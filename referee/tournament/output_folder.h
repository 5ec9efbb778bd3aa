// A tournament's output folder: the names of what the referee keeps in it, in one place. The
// runner writes them, `verify`, `standings` and `serve` read them; docs/TOURNAMENTS.md says
// what each holds.
#pragma once

#include <string>
#include <string_view>

namespace allfives::referee {

// The copy of the definition the folder was last run with (a text-format v1.Tournament, with
// the seed drawn when the file had none): what `--resume`, `verify` and `standings` read.
inline constexpr std::string_view kDefinitionFile = "tournament.txtpb";
// One line per finished match (v1.IndexEntry as JSON).
inline constexpr std::string_view kIndexFile = "index.jsonl";
// The match logs, one file per match: matches/MATCH_ID.jsonl.
inline constexpr std::string_view kMatchesFolder = "matches";
// Held by the one referee that runs in the folder (FolderLock).
inline constexpr std::string_view kLockFile = "referee.lock";

// DIR/NAME for one of the names above.
std::string output_path(const std::string& dir, std::string_view name);
// A match's log as the index names it, relative to the folder: "matches/MATCH_ID.jsonl".
std::string match_log_name(const std::string& match_id);

}  // namespace allfives::referee
