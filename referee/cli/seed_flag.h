// The --seed flag of `referee match` and `referee demo`. Without it the command draws a seed
// (draw_seed, match/match_terms.h) and prints it, so --seed repeats the deals.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace allfives::referee {

// Adds `names` (e.g. "--seed,-s") to `cmd`, read into `seed`: a whole number from 0 to
// 2^64 - 1, anything else refused with the reason (a command-line mistake, exit 2).
CLI::Option* add_seed_flag(CLI::App* cmd, const std::string& names, std::optional<uint64_t>& seed,
                           const std::string& help);

}  // namespace allfives::referee
