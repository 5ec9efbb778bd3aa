// A review judges a seat with that seat's information only (docs/REVIEW.md, "Fair by
// construction"): the same log with every tile the seat could not see (the other seats' unplayed
// tiles and the boneyard's undrawn ones) exchanged among those places, the public history
// unchanged, gives the same review of that seat, decision for decision.
//
// The exchanged log is a real match: the rules core re-plays it from its logged deals (each
// swap is kept only if every play, draw, pass, opener and score still follows the rules), and
// `referee verify` refuses it, since the seed no longer deals it.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"
#include "e2e/e2e_util.h"
#include "log/match_log.h"
#include "replay/replay.h"
#include "review/review_file.h"

namespace allfives::e2e {
namespace {

using Records = std::vector<v1::LogRecord>;

std::string text_of(const Records& records) {
  std::string text;
  for (const v1::LogRecord& r : records) text += referee::to_json_line(r) + "\n";
  return text;
}

// Whether the rules core re-plays `records` from their logged deals.
bool follows_rules(const Records& records) {
  referee::Replay replay;
  referee::LogError error;
  referee::ReplayOptions options;
  options.deals_from_seed = false;
  options.keep_steps = false;
  return referee::load_replay(text_of(records), "swapped.jsonl", replay, error, options);
}

// Where a hidden tile lies: seat `seat`'s dealt tile `index`, or the boneyard's (seat -1);
// `owner` is the seat that holds it at the hand's end (-1: still in the boneyard).
struct Place {
  int seat = -1;
  int index = 0;
  int owner = -1;
};

const v1::Tile& tile_at_const(const v1::LogHandStart& h, const Place& p) {
  return p.seat < 0 ? h.boneyard(p.index) : h.hands(p.seat).tiles(p.index);
}

v1::Tile& tile_at(v1::LogHandStart& h, const Place& p) {
  return p.seat < 0 ? *h.mutable_boneyard(p.index)
                    : *h.mutable_hands(p.seat)->mutable_tiles(p.index);
}

bool same(const v1::Tile& a, const v1::Tile& b) {
  return a.high() == b.high() && a.low() == b.low();
}

// Exchanges tiles `a` and `b` in a hand end's revealed hands (where either is revealed).
void exchange_revealed(v1::LogHandEnd& e, const v1::Tile& a, const v1::Tile& b) {
  for (v1::SeatTiles& hand : *e.mutable_hands())
    for (v1::Tile& t : *hand.mutable_tiles()) {
      if (same(t, a)) {
        t = b;
      } else if (same(t, b)) {
        t = a;
      }
    }
}

// The places of hand `start`'s tiles that `seat` cannot see before the hand ends: other seats'
// dealt tiles they never play, boneyard tiles other seats draw and never play, and boneyard
// tiles nobody draws.
std::vector<Place> hidden_places(const Records& log, size_t start, size_t end, int seat) {
  const v1::LogHandStart& h = log[start].hand_start();
  std::vector<v1::Tile> played;
  std::vector<int> drawer;  // who drew each boneyard tile, in drawing order
  for (size_t i = start + 1; i < end; ++i) {
    if (log[i].has_play()) played.push_back(log[i].play().play().tile());
    if (log[i].has_draw())
      drawer.insert(drawer.end(), static_cast<size_t>(log[i].draw().tiles_size()),
                    static_cast<int>(log[i].draw().seat()));
  }
  const auto unplayed = [&](const v1::Tile& t) {
    return std::none_of(played.begin(), played.end(),
                        [&](const v1::Tile& p) { return same(p, t); });
  };
  std::vector<Place> places;
  for (int s = 0; s < h.hands_size(); ++s) {
    if (s == seat) continue;
    for (int k = 0; k < h.hands(s).tiles_size(); ++k)
      if (unplayed(h.hands(s).tiles(k))) places.push_back(Place{s, k, s});
  }
  for (int k = 0; k < h.boneyard_size(); ++k) {
    const int owner = k < static_cast<int>(drawer.size()) ? drawer[static_cast<size_t>(k)] : -1;
    if (owner != seat && unplayed(h.boneyard(k))) places.push_back(Place{-1, k, owner});
  }
  return places;
}

// Rewrites the draw records of the hand starting at `start` from its logged boneyard order.
void rewrite_draws(Records& log, size_t start) {
  const v1::LogHandStart& h = log[start].hand_start();
  int next = 0;
  for (size_t i = start + 1; i < log.size() && !log[i].has_hand_end(); ++i) {
    if (!log[i].has_draw()) continue;
    for (v1::Tile& t : *log[i].mutable_draw()->mutable_tiles()) t = h.boneyard(next++);
  }
}

// Rewrites what the log says of each decision's options in the hand starting at `start` (the
// plays the deciding seat could make, which depend on its tiles) from its logged deal.
void rewrite_options(Records& log, size_t start, const Config& config) {
  const v1::LogHandStart& h = log[start].hand_start();
  Position p;
  p.config = config;
  p.hand_index = static_cast<int>(h.hand_index());
  for (int s = 0; s < h.hands_size(); ++s)
    for (const v1::Tile& t : h.hands(s).tiles())
      p.hands[s].add(Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low())));
  for (const v1::Tile& t : h.boneyard())
    p.boneyard[p.boneyard_size++] = Tile::of(static_cast<int>(t.high()), static_cast<int>(t.low()));
  for (int side = 0; side < h.scores_size(); ++side)
    p.scores[side] = static_cast<int>(h.scores(side));
  p.seat_to_move = static_cast<int>(h.opener_seat());
  OpenRule rule = OpenRule::kWinnerChooses;
  wire::from_proto(h.open_rule(), rule, nullptr);
  p.open_rule = rule;
  State state = State::new_match(config, 0);
  if (!State::from_position(p, 0, state, nullptr)) return;
  for (size_t i = start + 1; i < log.size() && !log[i].has_hand_end(); ++i) {
    if (!log[i].has_play()) continue;
    v1::LogPlay& play = *log[i].mutable_play();
    const PlayList legal = state.legal_plays();
    play.set_legal_play_count(static_cast<uint32_t>(legal.size()));
    play.clear_options();
    for (const Play& option : legal) {
      v1::LogOption* o = play.add_options();
      *o->mutable_play() = wire::to_proto(option);
      o->set_count(static_cast<uint32_t>(count_after(state.line(), option)));
      o->set_points(static_cast<uint32_t>(points_after(state.line(), option)));
    }
    Play made;
    if (!wire::from_proto(play.play(), state.line().empty(), made, nullptr) ||
        state.apply(made) != PlayError::kNone)
      return;
  }
}

// Exchanges hidden tiles of every finished hand, keeping each exchange the rules accept.
// Returns how many were kept.
int exchange_hidden_tiles(Records& log, int seat, std::mt19937& rng) {
  Config config;
  wire::from_proto(log[0].header().format(), config.format, nullptr);
  config.target = static_cast<int>(log[0].header().target_score());
  config.max_hands = static_cast<int>(log[0].header().max_hands());
  int kept = 0;
  for (size_t start = 0; start < log.size(); ++start) {
    if (!log[start].has_hand_start()) continue;
    size_t end = start + 1;
    while (end < log.size() && !log[end].has_hand_end() && !log[end].has_hand_start()) ++end;
    if (end == log.size() || !log[end].has_hand_end()) continue;  // cut short: nothing revealed
    const std::vector<Place> places = hidden_places(log, start, end, seat);
    if (places.size() < 2) continue;
    // A revealed tile keeps its seat's pips (the hand's score) only if it goes for tiles of
    // equal pips: one for one, or two for two.
    const v1::LogHandStart& h0 = log[start].hand_start();
    const auto pips = [&](const Place& p) {
      const v1::Tile& t = tile_at_const(h0, p);
      return static_cast<int>(t.high() + t.low());
    };
    std::vector<std::vector<Place>> groups;
    for (size_t i = 0; i < places.size(); ++i) {
      groups.push_back({places[i]});
      for (size_t j = i + 1; j < places.size(); ++j)
        if (places[i].owner == places[j].owner) groups.push_back({places[i], places[j]});
    }
    std::vector<std::pair<std::vector<Place>, std::vector<Place>>> exchanges;
    for (size_t i = 0; i < groups.size(); ++i)
      for (size_t j = i + 1; j < groups.size(); ++j) {
        const std::vector<Place>&a = groups[i], &b = groups[j];
        int sa = 0, sb = 0;
        for (const Place& p : a) sa += pips(p);
        for (const Place& p : b) sb += pips(p);
        const bool moves = a[0].owner != b[0].owner || a[0].seat != b[0].seat;
        if (a.size() == b.size() && moves && sa == sb) exchanges.emplace_back(a, b);
      }
    std::shuffle(exchanges.begin(), exchanges.end(), rng);
    int here = 0;
    for (const auto& [a, b] : exchanges) {
      if (here == 8) break;
      Records trial = log;
      v1::LogHandStart& h = *trial[start].mutable_hand_start();
      for (size_t k = 0; k < a.size(); ++k) {
        const v1::Tile ta = tile_at(h, a[k]), tb = tile_at(h, b[k]);  // copies: swapped below
        std::swap(tile_at(h, a[k]), tile_at(h, b[k]));
        exchange_revealed(*trial[end].mutable_hand_end(), ta, tb);
      }
      rewrite_draws(trial, start);
      rewrite_options(trial, start, config);
      if (!follows_rules(trial)) continue;
      log = std::move(trial);
      ++kept;
      ++here;
    }
  }
  return kept;
}

std::vector<std::string> reviewed_decisions(const std::string& review_path) {
  referee::ReviewFile review;
  std::string error;
  EXPECT_TRUE(referee::read_review_file(review_path, review, &error)) << error;
  std::vector<std::string> out;
  for (const v1::ReviewDecision& d : review.decisions) out.push_back(referee::to_json_line(d));
  return out;
}

void expect_same_review_after_exchange(const std::string& name, const std::string& format,
                                       const std::vector<std::string>& bots, int seat) {
  const std::string dir = temp_dir(name);
  const std::string log = dir + "/m.jsonl";
  // A long match (a high target) has many hands, each with a few tiles hidden to its end.
  std::vector<std::string> argv = {kReferee, "match",    "--format", format,  "--seed",
                                   "2024",   "--target", "1000",     "--log", log};
  argv.insert(argv.end(), bots.begin(), bots.end());
  const RunResult match = run(argv);
  ASSERT_EQ(match.exit_code, 0) << match.output;

  Records records = read_log(log);
  std::mt19937 rng(7);
  const int kept = exchange_hidden_tiles(records, seat, rng);
  EXPECT_GE(kept, 5) << "too few exchanges for the test to say anything";
  const std::string other_dir = temp_dir(name + "-exchanged");
  const std::string other = other_dir + "/m.jsonl";
  std::ofstream(other) << text_of(records);
  EXPECT_EQ(run({kReferee, "verify", other}).exit_code, 1) << "the exchange changed no deal";

  for (const std::string& path : {log, other}) {
    const RunResult r =
        run({kReferee, "review", "--seat", std::to_string(seat), "--worlds", "200", path});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const std::vector<std::string> a = reviewed_decisions(referee::review_path_for(log));
  const std::vector<std::string> b = reviewed_decisions(referee::review_path_for(other));
  EXPECT_GT(a.size(), 20u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "decision " << i;
}

TEST(ReviewFairness, TwoPlayersSeatZeroSeesNothingOfTheOtherHandOrTheBoneyard) {
  expect_same_review_after_exchange("fair-2p-0", "2p", {kGreedy, kRandom}, 0);
}

TEST(ReviewFairness, TwoPlayersSeatOne) {
  expect_same_review_after_exchange("fair-2p-1", "2p", {kGreedy, kRandom}, 1);
}

TEST(ReviewFairness, ThreePlayersTheOtherHandsExchangeAmongThemselves) {
  expect_same_review_after_exchange("fair-3p", "3p", {kGreedy, kRandom, kGreedy}, 0);
}

TEST(ReviewFairness, PartnershipsThePartnersAndOpponentsHandsExchange) {
  expect_same_review_after_exchange("fair-partners", "partners",
                                    {kGreedy, kRandom, kGreedy, kRandom}, 2);
}

}  // namespace
}  // namespace allfives::e2e
