// A tune file (proto/allfives/v1/tune.proto) read and checked whole, and the tournament each
// iteration plays: the tuned bot twice, at theta+ and theta-, as a tournament file of its own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "allfives/v1/tune.pb.h"
#include "tune/spsa.h"

namespace allfives::referee {

inline constexpr uint32_t kMaxTunePairs = 1'000'000;

struct TuneDef {
  v1::Tune proto;    // as written, defaults filled in
  std::string path;  // absolute
  std::vector<SpsaParam> params;
  SpsaSchedule schedule;
  std::string out_dir;  // proto.out_dir, or tunes-out/NAME
  // The tuned bot and the opponents as a tournament file's bots, commands and folders absolute
  // (resolved from the tune file's folder), so iteration files may live anywhere.
  std::vector<v1::TournamentBot> bots;
};

// Parses and checks a tune file's text, bots aside (nothing is looked up): "PATH:LINE: what
// was expected" in *error otherwise.
bool parse_tune(const std::string& path, const std::string& text, v1::Tune& out,
                std::string* error);

// Reads and checks the file ("FILE:LINE: what was expected"); its bots are found and its match
// terms checked as a tournament's. False and *error otherwise.
bool load_tune(const std::string& path, TuneDef& out, std::string* error);

// The parameters, schedule and folder of a file already checked (by parse_tune): nothing is
// looked up, bots stays empty.
TuneDef tune_terms(const v1::Tune& t);

// The output folder when neither the file nor --out names one: tunes-out/NAME (relative).
std::string default_tune_out_dir(const v1::Tune& t);

// The names the tuned bot plays under in an iteration's matches.
std::string plus_name(const TuneDef& d);
std::string minus_name(const TuneDef& d);

// Iteration `i`'s tournament: theta+ and theta- (the tuned bot with `plus` / `minus` added to
// its own params) in `pairs` mirrored pairs against each other, or as candidates against each
// opponent; its seed derived from the tune's and i; its out_dir the tune's folder (so every
// bot is kept out of it: tournament_hidden_paths).
v1::Tournament iteration_tournament(const TuneDef& d, uint64_t i, uint32_t pairs,
                                    const std::vector<double>& plus,
                                    const std::vector<double>& minus, int concurrency);

// The confirming SPRT: the tuned bot at `tuned` against it at the start values.
v1::Tournament confirm_tournament(const TuneDef& d, const std::vector<double>& tuned,
                                  int concurrency);

// name -> value of the tuned parameters.
std::map<std::string, double> named(const TuneDef& d, const std::vector<double>& values);

}  // namespace allfives::referee
