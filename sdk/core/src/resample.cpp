#include "allfives/core/resample.h"

#include <algorithm>
#include <map>

namespace allfives {

namespace {

// Past this many table entries (32 MiB) the knowledge is dropped for the hand sizes alone
// rather than allocate more; no real hand comes near it.
constexpr uint64_t kMaxTable = uint64_t{1} << 22;

// How many partial hands (suffix-count vectors) a seat with these capacities has: vectors
// S[0] >= S[1] >= ... >= S[g-1] >= 0 with S[j] <= cap[j]. Saturates at kMaxTable.
uint64_t count_profiles(int num_groups, const std::array<int, Knowledge::kMaxGroups>& cap) {
  std::vector<uint64_t> ways(static_cast<size_t>(cap[0]) + 1, 0);
  for (int v = 0; v <= cap[num_groups - 1]; ++v) ways[v] = 1;
  for (int j = num_groups - 2; j >= 0; --j) {
    std::vector<uint64_t> next(ways.size(), 0);
    uint64_t below = 0;  // sum of ways[w] for w <= v: S[j+1] may be anything up to S[j]
    for (int v = 0; v <= cap[0]; ++v) {
      below = std::min(kMaxTable, below + ways[v]);
      if (v <= cap[j]) next[v] = below;
    }
    ways = std::move(next);
  }
  uint64_t total = 0;
  for (uint64_t w : ways) total = std::min(kMaxTable, total + w);
  return total;
}

// Orders partial hands element by element (std::vector's own operator< trips GCC 12's
// -Wstringop-overread on its memcmp).
struct ProfileLess {
  bool operator()(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    return a.size() < b.size();
  }
};

}  // namespace

WorldSampler::WorldSampler(const View& view, const Knowledge* knowledge) {
  const int n = view.num_players();
  const int me = view.seat();
  if (view.seat_to_move() != me || view.legal_plays().empty()) return;
  int hidden = view.boneyard_size();
  for (int s = 0; s < n; ++s)
    if (s != me) hidden += view.hand_size(s);
  if (hidden != view.unseen().size()) return;

  base_.config = view.config();
  base_.hand_index = view.hand_index();
  base_.hands[me] = view.hand();
  base_.boneyard_size = view.boneyard_size();
  for (int i = 0; i < view.line().size(); ++i) base_.line[i] = view.line()[i];
  base_.line_size = view.line().size();
  for (int side = 0; side < num_sides(view.config().format); ++side)
    base_.scores[side] = view.score(side);
  base_.seat_to_move = me;
  base_.open_rule = view.open_rule();

  if (knowledge && build(view, knowledge)) return;
  exact_ = knowledge == nullptr;
  build(view, nullptr);
}

namespace {

// Whether `knowledge` was kept for the position `view` shows (the same seat, hand, line and
// hand sizes).
bool knowledge_matches(const View& view, const Knowledge& knowledge) {
  const int me = view.seat();
  const Line& a = knowledge.line();
  const Line& b = view.line();
  bool same = knowledge.seat() == me && knowledge.format() == view.config().format &&
              knowledge.hand_index() == view.hand_index() && a.size() == b.size();
  for (int i = 0; same && i < a.size(); ++i) same = a[i] == b[i];
  for (int s = 0; same && s < view.num_players(); ++s)
    if (s != me) same = knowledge.tracked_size(s) == view.hand_size(s);
  return same;
}

}  // namespace

bool WorldSampler::build_seat(const View& view, const Knowledge* knowledge, int s,
                              TileSet opening_forbidden, Seat& seat, uint64_t& profiles) const {
  seat = Seat{};
  seat.seat = s;
  seat.size = view.hand_size(s);
  std::array<Knowledge::Group, Knowledge::kMaxGroups> groups{};
  if (knowledge) {
    seat.num_groups = knowledge->num_groups(s);
    for (int j = 0; j < seat.num_groups; ++j) groups[j] = knowledge->group(s, j);
  } else {
    seat.num_groups = 1;
    groups[0] = Knowledge::Group{seat.size, opening_forbidden};
  }
  if (seat.num_groups == 0) {  // an empty hand (only at a hand's end, never at a decision)
    seat.num_groups = 1;
    groups[0] = Knowledge::Group{0, TileSet::all()};
  }
  for (int j = seat.num_groups - 1; j >= 0; --j) {
    // Hall's condition on levels holds only for nested sets (knowledge.h keeps them so).
    if (j + 1 < seat.num_groups && !(groups[j + 1].forbidden - groups[j].forbidden).empty())
      return false;
    seat.cap[j] = groups[j].count + (j + 1 < seat.num_groups ? seat.cap[j + 1] : 0);
  }
  for (int i = 0; i < num_tiles_; ++i) {
    const Tile t = tiles_[i];
    int level = 0;
    while (level < seat.num_groups && groups[level].forbidden.contains(t)) ++level;
    seat.level[t.index()] = static_cast<uint8_t>(level);
  }
  profiles = count_profiles(seat.num_groups, seat.cap);
  return true;
}

void WorldSampler::order_for_widest(std::array<uint64_t, kMaxPlayers - 1>& sizes) {
  // The seat with the most partial hands is dealt in order of its levels, newest first, so
  // its partial hand is a count (see step); the others are summed up by profiles.
  int widest = 0;
  for (int i = 1; i < num_seats_; ++i)
    if (sizes[i] > sizes[widest]) widest = i;
  std::swap(seats_[0], seats_[widest]);
  std::swap(sizes[0], sizes[widest]);
  const Seat& first = seats_[0];
  std::stable_sort(tiles_.begin(), tiles_.begin() + num_tiles_,
                   [&](Tile a, Tile b) { return first.level[a.index()] > first.level[b.index()]; });
}

void WorldSampler::build_profiles() {
  for (int i = 1; i < num_seats_; ++i) {
    const Seat& seat = seats_[i];
    Profiles& p = profiles_[i];
    // Every profile, found from the empty one by adding tiles of every level.
    std::map<std::vector<uint8_t>, int, ProfileLess> index;
    std::vector<std::vector<uint8_t>> all{std::vector<uint8_t>(seat.num_groups, 0)};
    index[all[0]] = 0;
    p.next.clear();
    for (size_t k = 0; k < all.size(); ++k) {
      for (int level = 0; level < seat.num_groups; ++level) {
        std::vector<uint8_t> s = all[k];
        bool fits = true;
        for (int j = 0; j <= level && fits; ++j) fits = ++s[j] <= seat.cap[j];
        int to = -1;
        if (fits) {
          auto [it, added] = index.emplace(s, static_cast<int>(all.size()));
          if (added) all.push_back(s);
          to = it->second;
        }
        p.next.push_back(to);
      }
    }
    p.count = static_cast<int>(all.size());
    p.full.assign(all.size(), 0);
    for (size_t k = 0; k < all.size(); ++k) p.full[k] = all[k][0] == seat.size;
  }
  stride_[0] = 1;
  num_states_ = seats_[0].size + 1;
  for (int i = 1; i < num_seats_; ++i) {
    stride_[i] = num_states_;
    num_states_ *= profiles_[i].count;
  }
}

void WorldSampler::count_ways() {
  // ways_[i][x]: the ways to deal tiles i.. from state x and end with every hand full.
  const Seat& first = seats_[0];
  const size_t X = static_cast<size_t>(num_states_);
  ways_.assign(X * static_cast<size_t>(num_tiles_ + 1), 0);
  for (size_t x = 0; x < X; ++x) {
    bool full = static_cast<int>(x % static_cast<size_t>(first.size + 1)) == first.size;
    for (int i = 1; i < num_seats_ && full; ++i)
      full = profiles_[i].full[(x / static_cast<size_t>(stride_[i])) % profiles_[i].count];
    ways_[static_cast<size_t>(num_tiles_) * X + x] = full ? 1 : 0;
  }
  for (int i = num_tiles_ - 1; i >= 0; --i) {
    const uint64_t* after = &ways_[static_cast<size_t>(i + 1) * X];
    uint64_t* here = &ways_[static_cast<size_t>(i) * X];
    for (int x = 0; x < num_states_; ++x) {
      uint64_t w = after[x];  // the tile stays in the boneyard
      for (int d = 1; d <= num_seats_; ++d)
        if (const int y = step(x, i, d); y >= 0) w += after[y];
      here[x] = w;
    }
  }
  count_ = ways_[0];
}

bool WorldSampler::build(const View& view, const Knowledge* knowledge) {
  if (knowledge && !knowledge_matches(view, *knowledge)) return false;
  // Without knowledge, a hand's opening still says who was dealt what must open.
  TileSet opening_forbidden;
  if (!knowledge && view.line().empty() && view.open_rule() != OpenRule::kWinnerChooses)
    opening_forbidden = not_dealt_to_anyone(view.open_rule(), view.legal_plays()[0].tile);
  num_tiles_ = 0;
  for (Tile t : view.unseen()) tiles_[num_tiles_++] = t;
  num_seats_ = 0;
  std::array<uint64_t, kMaxPlayers - 1> sizes{};
  for (int s = 0; s < view.num_players(); ++s) {
    if (s == view.seat()) continue;
    if (!build_seat(view, knowledge, s, opening_forbidden, seats_[num_seats_], sizes[num_seats_]))
      return false;
    ++num_seats_;
  }
  order_for_widest(sizes);
  uint64_t states = static_cast<uint64_t>(seats_[0].size) + 1;
  for (int i = 1; i < num_seats_; ++i) states *= sizes[i];
  if (states * static_cast<uint64_t>(num_tiles_ + 1) > kMaxTable) return false;
  build_profiles();
  count_ways();
  return count_ > 0;
}

int WorldSampler::step(int x, int i, int d) const {
  if (d == 0) return x;
  const Seat& seat = seats_[d - 1];
  const int level = seat.level[tiles_[i].index()];
  if (level >= seat.num_groups) return -1;
  if (d == 1) {
    // Tiles come newest level first, so the count so far is the suffix count of this level.
    const int held = x % (seat.size + 1);
    return held + 1 <= seat.cap[level] ? x + 1 : -1;
  }
  const Profiles& p = profiles_[d - 1];
  const int from = (x / stride_[d - 1]) % p.count;
  const int to = p.next[static_cast<size_t>(from) * seat.num_groups + level];
  return to < 0 ? -1 : x + (to - from) * stride_[d - 1];
}

bool WorldSampler::sample(SplitMix64& rng, Position& out) const {
  if (count_ == 0) return false;
  Position p = base_;
  for (int i = 0; i < num_seats_; ++i) p.hands[seats_[i].seat] = TileSet{};
  const size_t X = static_cast<size_t>(num_states_);
  int bone = 0;
  int x = 0;
  for (int i = 0; i < num_tiles_; ++i) {
    const uint64_t* after = &ways_[static_cast<size_t>(i + 1) * X];
    uint64_t r = rng.below64(ways_[static_cast<size_t>(i) * X + static_cast<size_t>(x)]);
    for (int d = 0; d <= num_seats_; ++d) {
      const int y = step(x, i, d);
      if (y < 0) continue;
      if (r < after[y]) {
        if (d == 0) {
          p.boneyard[bone++] = tiles_[i];
        } else {
          p.hands[seats_[d - 1].seat].add(tiles_[i]);
        }
        x = y;
        break;
      }
      r -= after[y];
    }
  }
  shuffle(p.boneyard.data(), bone, rng);
  out = p;
  return true;
}

bool WorldSampler::sample(SplitMix64& rng, State& out) const {
  Position p;
  if (!sample(rng, p)) return false;
  return State::from_position(p, rng.next(), out, nullptr);
}

}  // namespace allfives
