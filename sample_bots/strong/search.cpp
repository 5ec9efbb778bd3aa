#include "search.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace allfives::strong {

// ---------------------------------------------------------------------------------------------
// Tracker

void Tracker::start_match(int seat, Format format) {
  seat_ = seat;
  format_ = format;
  line_ = Line{};
  groups_ = {};
  num_groups_ = {};
  drew_last_ = {};
}

namespace {

// The tiles no seat held at the deal, as the open rule tells (RULES.md "Who opens a hand").
TileSet not_dealt_to_anyone(const bot::HandStartInfo& info) {
  TileSet out;
  if (info.open_rule == OpenRule::kWinnerChooses) return out;
  const Tile open = info.open_with;
  for (int i = 0; i < kNumTiles; ++i) {
    const Tile t = Tile::from_index(i);
    if (info.open_rule == OpenRule::kHighestDouble) {
      if (t.is_double() && t.pips() > open.pips()) out.add(t);
    } else {  // kHeaviestTile: nobody held a double, nor a heavier tile
      const bool heavier =
          t.pips() > open.pips() || (t.pips() == open.pips() && t.hi() > open.hi());
      if (t.is_double() || heavier) out.add(t);
    }
  }
  return out;
}

TileSet end_suits(const Line& line) {
  if (line.empty()) return TileSet{};
  return TileSet::suit(line.end(End::kLeft).value) | TileSet::suit(line.end(End::kRight).value);
}

}  // namespace

void Tracker::on_hand_start(const bot::HandStartInfo& info) {
  line_ = Line{};
  num_groups_ = {};
  drew_last_ = {};
  const TileSet forbidden = not_dealt_to_anyone(info);
  for (int s = 0; s < num_players(format_); ++s)
    if (s != seat_) add_group(s, hand_size(format_), forbidden);
}

void Tracker::on_event(const Event& e) {
  const int s = e.seat;
  if (s < 0 || s >= num_players(format_)) return;
  switch (e.kind) {
    case EventKind::kPlay: {
      if (s != seat_) {
        if (drew_last_[s] && num_groups_[s] > 0) {
          // The tile that ended a draw: the newest group's last tile.
          Group& g = groups_[s][num_groups_[s] - 1];
          if (--g.count == 0) --num_groups_[s];
        } else {
          remove_tile(s, e.play.tile);
        }
        drew_last_[s] = false;
      }
      if (line_.empty() || line_.fits(e.play.tile, e.play.end))
        line_.place(e.play.tile, e.play.end, s);
      break;
    }
    case EventKind::kDraw: {
      if (s == seat_ || e.count <= 0) break;
      const TileSet suits = end_suits(line_);
      forbid_all(s, suits);
      add_group(s, e.count, suits);
      drew_last_[s] = true;
      break;
    }
    case EventKind::kPass: {
      if (s == seat_) break;
      forbid_all(s, end_suits(line_));
      drew_last_[s] = false;
      break;
    }
    default:
      break;
  }
}

int Tracker::tracked_size(int seat) const {
  int n = 0;
  for (int i = 0; i < num_groups_[seat]; ++i) n += groups_[seat][i].count;
  return n;
}

TileSet Tracker::forbidden_for_all(int seat) const {
  if (num_groups_[seat] == 0) return TileSet{};
  TileSet all = TileSet::all();
  for (int i = 0; i < num_groups_[seat]; ++i)
    all = TileSet::from_bits(all.bits() & groups_[seat][i].forbidden.bits());
  return all;
}

void Tracker::add_group(int seat, int count, TileSet forbidden) {
  int& n = num_groups_[seat];
  if (n == kMaxGroups) {
    // Out of room (never in a real hand): merge into the newest group, keeping only what
    // both groups forbid, which is looser than the truth.
    Group& g = groups_[seat][n - 1];
    g.count += count;
    g.forbidden = TileSet::from_bits(g.forbidden.bits() & forbidden.bits());
    return;
  }
  groups_[seat][n++] = Group{count, forbidden};
}

void Tracker::forbid_all(int seat, TileSet tiles) {
  for (int i = 0; i < num_groups_[seat]; ++i) groups_[seat][i].forbidden |= tiles;
}

void Tracker::remove_tile(int seat, Tile tile) {
  int& n = num_groups_[seat];
  if (n == 0) return;
  int from = -1;
  for (int i = 0; i < n && from < 0; ++i)
    if (groups_[seat][i].count > 0 && !groups_[seat][i].forbidden.contains(tile)) from = i;
  if (from < 0) {
    // The seat played a tile we thought it could not hold: our facts are wrong somewhere, so
    // forget what we believed of its hand rather than sample from a wrong belief.
    for (int i = 0; i < n; ++i) groups_[seat][i].forbidden = TileSet{};
    from = n - 1;
  }
  if (--groups_[seat][from].count == 0) {
    for (int i = from; i + 1 < n; ++i) groups_[seat][i] = groups_[seat][i + 1];
    --n;
  }
}

// ---------------------------------------------------------------------------------------------
// Sampling

namespace {

// The k-th (0-based) tile of a set in index order.
Tile nth_tile(uint32_t bits, int k) {
  for (; k > 0; --k) bits &= bits - 1;
  return Tile::from_index(std::countr_zero(bits));
}

bool same_line(const Line& a, const Line& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i)
    if (a[i].tile != b[i].tile) return false;
  return true;
}

struct Slot {
  int seat = 0;
  int count = 0;
  TileSet allowed;
};

}  // namespace

bool sample_world(const View& view, const Tracker* tracker, SplitMix64& rng, Position& out) {
  const int n = view.num_players();
  const int me = view.seat();
  const TileSet unseen = view.unseen();
  if (tracker && (tracker->seat() != me || !same_line(tracker->line(), view.line())))
    tracker = nullptr;

  std::array<Slot, kMaxPlayers * Tracker::kMaxGroups> slots{};
  int num_slots = 0;
  for (int s = 0; s < n; ++s) {
    if (s == me) continue;
    if (tracker && tracker->tracked_size(s) == view.hand_size(s)) {
      for (int g = 0; g < tracker->num_groups(s); ++g) {
        const Tracker::Group& group = tracker->group(s, g);
        if (group.count > 0) slots[num_slots++] = Slot{s, group.count, unseen - group.forbidden};
      }
    } else {
      slots[num_slots++] = Slot{s, view.hand_size(s), unseen};
    }
  }
  // Most constrained first: the least slack between the tiles allowed and the tiles needed.
  std::sort(slots.begin(), slots.begin() + num_slots, [](const Slot& a, const Slot& b) {
    const int sa = a.allowed.size() - a.count, sb = b.allowed.size() - b.count;
    if (sa != sb) return sa < sb;
    return a.seat < b.seat;
  });

  std::array<TileSet, kMaxPlayers> hands{};
  TileSet left;
  bool strict = true;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kStrictTries) {
      strict = false;
      for (int i = 0; i < num_slots; ++i) slots[i].allowed = unseen;
    }
    hands = {};
    left = unseen;
    bool ok = true;
    for (int i = 0; i < num_slots && ok; ++i) {
      uint32_t avail = slots[i].allowed.bits() & left.bits();
      int size = std::popcount(avail);
      if (size < slots[i].count) {
        ok = false;
        break;
      }
      for (int k = 0; k < slots[i].count; ++k) {
        const Tile t = nth_tile(avail, static_cast<int>(rng.below(static_cast<uint32_t>(size))));
        avail &= ~(1u << t.index());
        --size;
        hands[slots[i].seat].add(t);
        left.remove(t);
      }
    }
    if (ok || attempt >= kStrictTries) break;
  }

  out = Position{};
  out.config = view.config();
  out.hand_index = view.hand_index();
  out.hands = hands;
  out.hands[me] = view.hand();
  out.boneyard_size = 0;
  for (Tile t : left) out.boneyard[out.boneyard_size++] = t;
  shuffle(out.boneyard.data(), out.boneyard_size, rng);
  const Line& line = view.line();
  out.line_size = line.size();
  for (int i = 0; i < line.size(); ++i) out.line[i] = line[i];
  for (int side = 0; side < num_sides(view.config().format); ++side)
    out.scores[side] = view.score(side);
  out.seat_to_move = me;
  out.open_rule = view.open_rule();
  return strict;
}

// ---------------------------------------------------------------------------------------------
// Rollouts

Play rollout_pick(const State& state, SplitMix64& rng, int epsilon_permille) {
  const PlayList legal = state.legal_plays();
  const int n = legal.size();
  if (n == 1) return legal[0];
  if (epsilon_permille > 0 && static_cast<int>(rng.below(1000)) < epsilon_permille)
    return legal[static_cast<int>(rng.below(static_cast<uint32_t>(n)))];
  const Line& line = state.line();
  int best = 0, best_value = -1, ties = 0;
  for (int i = 0; i < n; ++i) {
    const int value = greedy_rank(line, legal[i]);
    if (value > best_value) {
      best = i;
      best_value = value;
      ties = 1;
    } else if (value == best_value && rng.below(static_cast<uint32_t>(++ties)) == 0) {
      best = i;  // reservoir sampling: a uniform pick among equals
    }
  }
  return legal[best];
}

// ---------------------------------------------------------------------------------------------
// Win table

WinTable::WinTable(const Config& config) : target_(config.target) {
  cells_ = (target_ + 4) / 5;
  // Targets far beyond the rules' (a tournament may set one) would make the table slow to
  // build; p_win then uses a logistic curve of the score difference instead.
  if (num_sides(config.format) != 2 || cells_ > kMaxCells) return;
  p_.assign(static_cast<size_t>(cells_) * cells_, 0.5);

  // Hand outcomes (points per side, in fives) from greedy-ish self-play with no target in
  // reach, symmetrised so neither side is favoured.
  std::map<std::pair<int, int>, double> outcomes;
  Config sim = config;
  sim.target = 30000;
  sim.max_hands = 100;
  SplitMix64 rng(0x5747524f4e47ull);  // a fixed seed: the table is the same in every run
  for (int match = 0; match < 60; ++match) {
    State s = State::new_match(sim, rng.next());
    int hand = s.hand_index();
    int before0 = 0, before1 = 0;
    while (!s.is_terminal()) {
      s.apply(rollout_pick(s, rng, 50));
      if (s.is_terminal() || s.hand_index() != hand) {
        const int g0 = (s.score(0) - before0) / 5, g1 = (s.score(1) - before1) / 5;
        outcomes[{g0, g1}] += 1;
        outcomes[{g1, g0}] += 1;
        before0 = s.score(0);
        before1 = s.score(1);
        hand = s.hand_index();
      }
    }
  }
  double total = 0, still = 0;
  for (const auto& [g, w] : outcomes) {
    total += w;
    if (g.first == 0 && g.second == 0) still += w;
  }
  const auto value = [&](int a, int b) {
    const bool a_done = a * 5 >= target_, b_done = b * 5 >= target_;
    if (a_done && b_done) return 0.5;
    if (a_done) return 1.0;
    if (b_done) return 0.0;
    return p_[static_cast<size_t>(a) * cells_ + b];
  };
  // Every outcome but (0, 0) moves the scores forward, so fill from the highest sum down.
  for (int sum = 2 * (cells_ - 1); sum >= 0; --sum) {
    for (int a = std::min(sum, cells_ - 1); a >= 0 && sum - a < cells_; --a) {
      const int b = sum - a;
      double acc = 0;
      for (const auto& [g, w] : outcomes)
        if (g.first != 0 || g.second != 0) acc += w * value(a + g.first, b + g.second);
      p_[static_cast<size_t>(a) * cells_ + b] = acc / (total - still);
    }
  }
}

double WinTable::p_win(int mine, int theirs) const {
  const bool a_done = mine >= target_, b_done = theirs >= target_;
  if (a_done && b_done) return 0.5;
  if (a_done) return 1.0;
  if (b_done) return 0.0;
  if (p_.empty()) return 1.0 / (1.0 + std::exp((theirs - mine) / 60.0));
  return p_[static_cast<size_t>(std::max(mine, 0) / 5) * cells_ + std::max(theirs, 0) / 5];
}

const WinTable& WinTable::for_config(const Config& config) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<WinTable>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = tables[{static_cast<int>(config.format), config.target}];
  if (!slot) slot = std::make_unique<WinTable>(config);
  return *slot;
}

// ---------------------------------------------------------------------------------------------
// Search

namespace {

constexpr double kScale = 1e6;  // utilities are summed as integers in millionths

struct Totals {
  std::vector<int64_t> sums;
  int worlds = 0;
  int strict = 0;
};

class Searcher {
 public:
  Searcher(const View& view, const Tracker* tracker, const SearchConfig& config, uint64_t seed)
      : view_(view), tracker_(tracker), config_(config), seed_(seed) {
    const Format f = view.config().format;
    side_ = view.side();
    sides_ = num_sides(f);
    if (config.utility == Utility::kWinProbability && sides_ == 2)
      table_ = &WinTable::for_config(view.config());
    for (int s = 0; s < sides_; ++s) root_scores_[s] = view.score(s);
  }

  // Plays world `index` for every candidate and adds the utilities to `totals`.
  void world(uint64_t index, Totals& totals) const {
    SplitMix64 rng(derive_seed(seed_, index));
    Position pos;
    const bool strict = sample_world(view_, tracker_, rng, pos);
    State base = blank_;
    if (!State::from_position(pos, rng.next(), base, nullptr)) return;
    const uint64_t rollout_seed = rng.next();
    const PlayList& legal = view_.legal_plays();
    const int hand = base.hand_index();
    for (int c = 0; c < legal.size(); ++c) {
      SplitMix64 r(rollout_seed);  // the same rollout randomness for every candidate
      State s = base;
      s.apply(legal[c]);
      while (!s.is_terminal() && s.hand_index() == hand)
        s.apply(rollout_pick(s, r, config_.epsilon_permille));
      totals.sums[c] += std::llround(utility(s) * kScale);
    }
    ++totals.worlds;
    if (strict) ++totals.strict;
  }

 private:
  double utility(const State& s) const {
    if (s.is_terminal()) {
      const int w = s.outcome().winner_side;
      const double win = w == side_ ? 1.0 : w < 0 ? 0.5 : 0.0;
      if (config_.utility == Utility::kWinProbability) return win;
      return (win - 0.5) * 200.0 + points(s);
    }
    if (table_) return table_->p_win(s.score(side_), s.score(1 - side_));
    return points(s);
  }

  // My side's points since the root minus the other sides' mean.
  double points(const State& s) const {
    double others = 0;
    for (int side = 0; side < sides_; ++side)
      if (side != side_) others += s.score(side) - root_scores_[side];
    return (s.score(side_) - root_scores_[side_]) - others / (sides_ - 1);
  }

  const View& view_;
  // State has no public constructor: worlds are built by from_position into a copy of this.
  const State blank_ = State::new_match(Config::standard(Format::kTwoPlayers), 0);
  const Tracker* tracker_;
  const SearchConfig& config_;
  uint64_t seed_;
  int side_ = 0;
  int sides_ = 2;
  const WinTable* table_ = nullptr;
  std::array<int, kMaxPlayers> root_scores_{};
};

}  // namespace

SearchResult search(const View& view, const Tracker* tracker, const SearchConfig& config,
                    uint64_t seed, std::chrono::steady_clock::time_point stop,
                    std::chrono::steady_clock::time_point hard_stop) {
  using Clock = std::chrono::steady_clock;
  SearchResult result;
  const PlayList& legal = view.legal_plays();
  const int n = legal.size();
  result.play = legal[0];
  result.means.assign(static_cast<size_t>(n), 0.0);
  if (n == 1) return result;
  if (Clock::now() >= hard_stop) {
    result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }

  const Searcher searcher(view, config.use_tracker ? tracker : nullptr, config, seed);
  const bool fixed = config.simulations > 0;
  const uint64_t limit = fixed ? static_cast<uint64_t>(config.simulations) : (1ull << 40);
  const Clock::time_point end = fixed ? hard_stop : std::min(stop, hard_stop);
  std::atomic<uint64_t> next{0};
  const auto work = [&](Totals& totals) {
    totals.sums.assign(static_cast<size_t>(n), 0);
    while (true) {
      const uint64_t i = next.fetch_add(1);
      if (i >= limit) break;
      // The first world is always searched (unless the hard stop passed), so an answer
      // never rests on nothing.
      if (i > 0 && Clock::now() >= end) break;
      searcher.world(i, totals);
    }
  };
  const int threads = std::max(1, config.threads);
  std::vector<Totals> totals(static_cast<size_t>(threads));
  {
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back([&, t] { work(totals[t]); });
    work(totals[0]);
  }
  std::vector<int64_t> sums(static_cast<size_t>(n), 0);
  for (const Totals& t : totals) {
    for (int c = 0; c < n; ++c) sums[c] += t.sums[c];
    result.worlds += t.worlds;
    result.strict_worlds += t.strict;
  }
  if (result.worlds == 0) {
    result.play = greedy_play(view.line(), view.legal_plays());
    return result;
  }
  int best = 0;
  for (int c = 0; c < n; ++c) {
    result.means[c] = static_cast<double>(sums[c]) / kScale / result.worlds;
    if (sums[c] > sums[best]) best = c;
  }
  result.play = legal[best];
  return result;
}

// ---------------------------------------------------------------------------------------------
// The bot

StrongBot::StrongBot(const bot::MatchInfo& info, const SearchConfig& config)
    : config_(config), seed_(info.seed) {
  tracker_.start_match(info.seat, info.config.format);
  // Build the win table now (tens of milliseconds, once per process), not on the clock of the
  // first decision.
  if (config.utility == Utility::kWinProbability && num_sides(info.config.format) == 2)
    WinTable::for_config(info.config);
}

Play StrongBot::choose_play(const View& view, const bot::Clock& clock) {
  using namespace std::chrono;
  const uint64_t seed = derive_seed(seed_, decisions_++);
  // The answer is late after hard_deadline(); keep a margin for the transport and for a busy
  // machine. Without any limit from the referee, the budget alone decides.
  const milliseconds allowed = clock.move_time + clock.bank_left;
  steady_clock::time_point hard_stop;
  steady_clock::time_point stop = clock.received + config_.budget;
  if (allowed > milliseconds(0)) {
    const milliseconds margin = std::max(milliseconds(30), clock.move_time / 10);
    hard_stop = clock.hard_deadline() - margin;
    // The budget, but never past the move time: the bank is for emergencies only.
    if (clock.move_time > milliseconds(0))
      stop = std::min(stop, clock.received + clock.move_time - margin);
  } else {
    hard_stop = clock.received + 4 * config_.budget + seconds(1);
  }
  last_ = search(view, &tracker_, config_, seed, stop, hard_stop);
  return last_.play;
}

}  // namespace allfives::strong
