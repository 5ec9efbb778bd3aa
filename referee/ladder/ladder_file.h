// Reading a ladder definition (proto/allfives/v1/ladder.proto, protobuf text format), checked
// completely at `referee ladder init`, and the tournament file of each round, which is how
// every ladder match reaches the runner: a round is a gauntlet of one version against its
// opponents, one deal sequence per pairing in every seat rotation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allfives/v1/ladder.pb.h"
#include "allfives/v1/tournament.pb.h"
#include "ladder/bot_upload.h"

namespace allfives::referee {

inline constexpr size_t kMaxLadderNameLength = 48;
inline constexpr size_t kMaxLadderFileBytes = size_t{1} << 16;
inline constexpr uint32_t kMaxOpponents = 64;

// A definition that passed every check, with defaults filled in.
struct LadderDef {
  v1::Ladder proto;
  std::string path;
  UploadLimits upload() const { return {proto.max_upload_bytes(), proto.max_upload_files()}; }
};

// Reads and checks the file: FILE:LINE: what was expected. A relative `python` is taken from
// the file's folder; unset, `default_python` (the build's run_bot, found by the caller).
bool load_ladder(const std::string& path, const std::string& default_python, LadderDef& out,
                 std::string* error);

// One version in a round: its name (NAME@N) and command line (absolute paths).
struct RoundBot {
  std::string name;
  std::vector<std::string> argv;
};

// The tournament of one round: `bots[0]` is the candidate, the others its opponents; seed
// `seed`, output folder `out_dir`, `concurrency` matches at once.
v1::Tournament round_tournament(const v1::Ladder& l, const std::string& name, uint64_t seed,
                                const std::vector<RoundBot>& bots, const std::string& out_dir,
                                int concurrency);

// The text a round's tournament file holds; "" and why if a path cannot be written in it.
std::string round_file_text(const v1::Tournament& t, std::string* error);

}  // namespace allfives::referee
