#include "allfives/engine/solver.h"

#include <algorithm>
#include <array>
#include <limits>

#include "allfives/core/greedy.h"

namespace allfives::engine {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kTableMask = (uint64_t{1} << HandSolver::kTableBits) - 1;

// SplitMix64's finaliser: every input bit reaches every output bit.
constexpr uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// An open end as 4 bits: its value and whether a double lies crosswise there.
int end_code(LineEnd e) {
  return e.value << 1 | (e.is_double ? 1 : 0);
}

// Whether the left end comes first in the order that makes mirror images share a key.
bool left_first(const Line& line) {
  return end_code(line.end(End::kLeft)) <= end_code(line.end(End::kRight));
}

// The most points a side could still gain in the hand: every tile left played for 20 (an end
// count never passes 24) and every pip left scored at the hand's end, rounded up.
int most_points_left(const State& state) {
  TileSet left = state.boneyard();
  for (int seat = 0; seat < num_players(state.format()); ++seat) left |= state.hand(seat);
  return 20 * left.size() + left.pips() + 2 * kMaxPlayers;
}

}  // namespace

HandSolver::HandSolver() : table_(size_t{1} << kTableBits) {}

std::optional<std::vector<PlayValue>> HandSolver::solve(const State& state, Utility utility,
                                                        int64_t node_budget) {
  std::vector<PlayValue> out;
  if (!solve(state, utility, node_budget, out)) return std::nullopt;
  return out;
}

bool HandSolver::solve(const State& state, Utility utility, int64_t node_budget,
                       std::vector<PlayValue>& out) {
  out.clear();
  nodes_ = 0;
  if (state.is_terminal() || num_sides(state.format()) != 2) return false;
  // A new generation empties the table without touching it; on wrap-around it is wiped.
  if (++generation_ == 0) {
    std::fill(table_.begin(), table_.end(), Entry{});
    generation_ = 1;
  }
  utility_ = utility;
  root_side_ = side_of(state.format(), state.seat_to_move());
  hand_ = state.hand_index();
  budget_ = node_budget;
  aborted_ = false;
  win_table_ = utility == Utility::kWin ? &WinTable::for_config(state.config()) : nullptr;
  // Points alone do not depend on the scores unless a side may reach the target in this hand;
  // leaving them out of the key lets positions reached with different scores share entries.
  keyed_scores_ =
      utility == Utility::kWin ||
      std::max(state.score(0), state.score(1)) + most_points_left(state) >= state.config().target;

  for (const Play play : state.legal_plays()) {
    State child = state;
    child.apply(play);
    if (++nodes_ > budget_) return false;
    double value = step_value(state, child);
    if (!ends_hand(child)) value += search(child, -kInf, kInf);
    if (aborted_) return false;
    out.push_back(PlayValue{play, value});
  }
  return true;
}

bool HandSolver::ends_hand(const State& after) const {
  return after.is_terminal() || after.hand_index() != hand_;
}

double HandSolver::step_value(const State& before, const State& after) const {
  const int other = 1 - root_side_;
  if (utility_ == Utility::kPoints)
    return (after.score(root_side_) - before.score(root_side_)) -
           (after.score(other) - before.score(other));
  if (after.is_terminal()) {
    const int winner = after.outcome().winner_side;
    return winner == root_side_ ? 1.0 : winner < 0 ? 0.5 : 0.0;
  }
  if (after.hand_index() != hand_)
    return win_table_->p_win(after.score(root_side_), after.score(other));
  return 0;
}

uint64_t HandSolver::key_of(const State& state) const {
  const Line& line = state.line();
  const int left = end_code(line.end(End::kLeft)), right = end_code(line.end(End::kRight));
  const uint64_t ends = static_cast<uint64_t>(std::min(left, right) << 4 | std::max(left, right));
  const uint64_t a = state.hand(0).bits() | uint64_t{state.hand(1).bits()} << 28 |
                     static_cast<uint64_t>(state.seat_to_move()) << 56 |
                     uint64_t{line.size() == 1} << 58;
  const uint64_t b = state.hand(2).bits() | uint64_t{state.hand(3).bits()} << 28 | ends << 56;
  uint64_t c = static_cast<uint64_t>(state.boneyard_size());
  if (keyed_scores_)
    c |= static_cast<uint64_t>(state.score(0)) << 8 | static_cast<uint64_t>(state.score(1)) << 32;
  return mix(a ^ mix(b ^ mix(c + 0x9E3779B97F4A7C15ull)));
}

uint8_t HandSolver::best_code(const State& state, Play play) {
  const bool first = (play.end == End::kLeft) == left_first(state.line());
  return static_cast<uint8_t>(play.tile.index() << 1 | (first ? 1 : 0));
}

int HandSolver::best_index(const State& state, const PlayList& legal, uint8_t code) {
  const Tile tile = Tile::from_index(code >> 1);
  const bool first = code & 1;
  const End end = first == left_first(state.line()) ? End::kLeft : End::kRight;
  for (int i = 0; i < legal.size(); ++i)
    if (legal[i].tile == tile && legal[i].end == end) return i;
  return -1;
}

double HandSolver::search(const State& state, double alpha, double beta) {
  const uint64_t key = key_of(state);
  Entry& entry = table_[key & kTableMask];
  uint8_t remembered = 0xff;
  if (entry.generation == generation_ && entry.key == key) {
    if (entry.bound == kExact) return entry.value;
    if (entry.bound == kLower) {
      if (entry.value >= beta) return entry.value;
      alpha = std::max(alpha, entry.value);
    } else {
      if (entry.value <= alpha) return entry.value;
      beta = std::min(beta, entry.value);
    }
    remembered = entry.best;
  }
  const double alpha0 = alpha, beta0 = beta;
  const bool maximizing = side_of(state.format(), state.seat_to_move()) == root_side_;

  // The remembered best play first, then the plays that score most now: cutoffs come early.
  const PlayList legal = state.legal_plays();
  std::array<int, PlayList::kCapacity> order{};
  std::array<int, PlayList::kCapacity> rank{};
  const int n = legal.size();
  const int first = remembered == 0xff ? -1 : best_index(state, legal, remembered);
  for (int i = 0; i < n; ++i) {
    rank[i] = i == first ? 1 << 20 : greedy_rank(state.line(), legal[i]);
    int j = i;
    for (; j > 0 && rank[order[j - 1]] < rank[i]; --j) order[j] = order[j - 1];
    order[j] = i;
  }

  double best = maximizing ? -kInf : kInf;
  int best_i = order[0];
  for (int k = 0; k < n; ++k) {
    const int i = order[k];
    State child = state;
    child.apply(legal[i]);
    if (++nodes_ > budget_) {
      aborted_ = true;
      return 0;
    }
    const double gain = step_value(state, child);
    double value = gain;
    if (!ends_hand(child)) value += search(child, alpha - gain, beta - gain);
    if (aborted_) return 0;
    if (maximizing ? value > best : value < best) {
      best = value;
      best_i = i;
    }
    if (maximizing)
      alpha = std::max(alpha, best);
    else
      beta = std::min(beta, best);
    if (alpha >= beta) break;
  }

  entry.key = key;
  entry.value = best;
  entry.generation = generation_;
  entry.bound = best <= alpha0 ? kUpper : best >= beta0 ? kLower : kExact;
  entry.best = best_code(state, legal[best_i]);
  return best;
}

}  // namespace allfives::engine
