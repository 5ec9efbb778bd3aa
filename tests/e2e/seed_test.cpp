// End-to-end tests of the one rule for a missing seed (draw_seed, referee/match/match_terms.h):
// `referee match`, `referee demo` and a tournament file without `seed` draw one at random and
// record it where a rerun finds it (the log's header; the printed line; the output folder's
// tournament.txtpb), and a resumed tournament plays the recorded seed, never a new one.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "allfives/core/rng.h"
#include "e2e/e2e_util.h"
#include "tournament/index_file.h"

namespace allfives::e2e {
namespace {

// The number after the first "seed " in `text` (fails the test if there is none).
uint64_t seed_in(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("seed:? (\\d+)"))) {
    ADD_FAILURE() << "no seed in: " << text;
    return 0;
  }
  return std::stoull(m[1].str());
}

std::vector<v1::IndexEntry> index_of(const std::string& out_dir) {
  std::vector<v1::IndexEntry> entries;
  std::vector<std::string> notes;
  std::string error;
  EXPECT_TRUE(referee::read_index(out_dir + "/index.jsonl", false, entries, notes, &error))
      << error;
  return entries;
}

// Every match of the index has the seed the schedule derives from `base` for its deal.
void expect_matches_from(const std::string& out_dir, uint64_t base, size_t matches) {
  const std::vector<v1::IndexEntry> entries = index_of(out_dir);
  EXPECT_EQ(entries.size(), matches);
  for (const v1::IndexEntry& e : entries)
    EXPECT_EQ(e.match().seed(), derive_seed(base, e.match().deal())) << e.match().match_id();
}

// A short 2-player tournament of deterministic bots, with no `seed`.
std::string write_unseeded(const std::string& dir, int bots) {
  const std::string path = dir + "/t.txtpb";
  std::ofstream out(path);
  out << "name: \"unseeded\"\nformat: FORMAT_TWO_PLAYERS\nmatches_per_pairing: 2\n"
      << "target_score: 61\nmove_time_ms: 2000\n"
      << "bots { name: \"greedy\" command: \"" << ALLFIVES_GREEDY_BOT << "\" }\n"
      << "bots { name: \"random\" command: \"" << ALLFIVES_RANDOM_BOT << "\" }\n";
  if (bots > 2)
    out << "bots { name: \"random2\" command: \"" << ALLFIVES_RANDOM_BOT
        << "\" args: \"--seed\" args: \"2\" }\n";
  return path;
}

RunResult tournament(const std::string& file, const std::string& out,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {kReferee, "tournament", file, "--out", out, "-j", "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, std::chrono::seconds(120));
}

TEST(SeedDefault, MatchWithoutSeedDrawsOneAndLogsIt) {
  const std::string help = run({kReferee, "match", "--help"}).output;
  EXPECT_NE(help.find("drawn at random"), std::string::npos) << help;
  const std::string dir = temp_dir("seed-match");
  std::set<uint64_t> seeds;
  for (int i = 0; i < 2; ++i) {
    const std::string log = dir + "/m" + std::to_string(i) + ".jsonl";
    const RunResult r = run({kReferee, "match", "--target", "31", "--log", log, ALLFIVES_GREEDY_BOT,
                             ALLFIVES_RANDOM_BOT});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const uint64_t printed = seed_in(r.output);
    EXPECT_EQ(only(read_log(log), v1::LogRecord::kHeader).header().seed(), printed)
        << "the log's header records the seed that was printed";
    seeds.insert(printed);
  }
  EXPECT_EQ(seeds.size(), 2u) << "each match without --seed draws its own";
}

TEST(SeedDefault, DemoWithoutSeedDrawsOneThatRepeatsTheMatch) {
  const std::string help = run({kReferee, "demo", "--help"}).output;
  EXPECT_NE(help.find("drawn at random"), std::string::npos) << help;
  const RunResult first = run({kReferee, "demo"});
  const RunResult second = run({kReferee, "demo"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const uint64_t seed = seed_in(first.output);
  EXPECT_NE(seed, seed_in(second.output)) << "each demo without --seed draws its own";
  // The printed seed repeats the match: the same hands, plays and result after the first line.
  const RunResult again = run({kReferee, "demo", "--seed", std::to_string(seed)});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto after_first_line = [](const std::string& s) { return s.substr(s.find('\n')); };
  EXPECT_EQ(after_first_line(again.output), after_first_line(first.output));
}

TEST(SeedDefault, TournamentWithoutSeedDrawsOneAndRecordsIt) {
  const std::string help = run({kReferee, "tournament", "--help"}).output;
  EXPECT_NE(help.find("drawn at random"), std::string::npos) << help;
  const std::string dir = temp_dir("seed-tournament");
  const std::string file = write_unseeded(dir, 2);
  std::set<uint64_t> seeds;
  for (const std::string& out : {dir + "/a", dir + "/b"}) {
    const RunResult r = tournament(file, out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const uint64_t printed = seed_in(r.output);
    EXPECT_NE(r.output.find("drawn at random"), std::string::npos) << r.output;
    EXPECT_EQ(seed_in(read_file(out + "/tournament.txtpb")), printed)
        << "the output folder's copy of the definition records the seed played";
    expect_matches_from(out, printed, 2);
    // `referee verify` reads the seed from that copy: the folder checks out.
    const RunResult verify = run({kReferee, "verify", out});
    EXPECT_EQ(verify.exit_code, 0) << verify.output;
    seeds.insert(printed);
  }
  EXPECT_EQ(seeds.size(), 2u) << "each fresh run of a file without seed draws its own";
}

// Resuming, even a finished tournament with a bot appended to its file, plays the seed recorded
// in the folder: a new draw would change the definition's hash, and the resume would be refused.
TEST(SeedDefault, ResumedTournamentReusesTheRecordedSeed) {
  const std::string dir = temp_dir("seed-resume");
  const std::string out = dir + "/out";
  const RunResult first = tournament(write_unseeded(dir, 2), out);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const uint64_t seed = seed_in(first.output);

  const RunResult same = tournament(write_unseeded(dir, 2), out, {"--resume"});
  ASSERT_EQ(same.exit_code, 0) << same.output;
  EXPECT_EQ(seed_in(same.output), seed);
  EXPECT_NE(same.output.find("0 to play"), std::string::npos) << same.output;

  const RunResult grown = tournament(write_unseeded(dir, 3), out, {"--resume"});
  ASSERT_EQ(grown.exit_code, 0) << grown.output;
  EXPECT_EQ(seed_in(grown.output), seed);
  EXPECT_NE(grown.output.find("6 matches, 4 to play"), std::string::npos) << grown.output;
  expect_matches_from(out, seed, 6);
  const RunResult verify = run({kReferee, "verify", out});
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
}

// Shards are played apart, into folders of their own: each would draw another seed.
TEST(SeedDefault, ShardedTournamentNeedsASeedInItsFile) {
  const std::string dir = temp_dir("seed-shard");
  const RunResult r = tournament(write_unseeded(dir, 2), dir + "/out", {"--shard", "0/2"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--shard needs a `seed` in the file"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace allfives::e2e
