#include "tournament/schedule.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string_view>

#include "allfives/core/rng.h"
#include "tournament/gauntlet.h"
#include "transport/nonce.h"

namespace allfives::referee {

namespace {

// The match of `members` (a pairing's bots, in increasing order) at (pairing, deal, rotation).
v1::ScheduledMatch match_of(const TournamentDef& t, const std::vector<int>& members,
                            uint64_t pairings, uint32_t pairing, uint32_t deal, uint32_t rotation) {
  const Format f = t.config.format;
  const int k = bots_per_pairing(f);
  const auto rotations = static_cast<uint64_t>(seat_rotations(f));
  v1::ScheduledMatch m;
  m.set_ordinal(static_cast<uint32_t>((deal * pairings + pairing) * rotations + rotation));
  m.set_pairing(pairing);
  m.set_deal(deal);
  m.set_rotation(rotation);
  m.set_seed(derive_seed(t.proto.seed(), deal));
  for (int seat = 0; seat < num_players(f); ++seat) {
    const int member = (seat + static_cast<int>(rotation)) % k;
    m.add_seat_bots(t.bots[static_cast<size_t>(members[static_cast<size_t>(member)])].display_name);
  }
  // Not the ordinal: ids stay the same when bots are appended (the ordinals shift).
  std::string id;
  for (int seat = 0; seat < num_players(f); ++seat) id += (seat ? "-" : "") + m.seat_bots(seat);
  id += "-d" + std::to_string(deal) + "-r" + std::to_string(rotation);
  m.set_match_id(id);
  return m;
}

}  // namespace

v1::ScheduledMatch scheduled_match(const TournamentDef& t,
                                   const std::vector<std::vector<int>>& pairings, uint32_t pairing,
                                   uint32_t deal, uint32_t rotation) {
  return match_of(t, pairings[pairing], pairings.size(), pairing, deal, rotation);
}

std::vector<v1::ScheduledMatch> make_schedule(const TournamentDef& t) {
  const auto rotations = static_cast<uint32_t>(seat_rotations(t.config.format));
  const uint32_t deals = t.proto.matches_per_pairing() / rotations;
  const auto pairings = pairings_of(t);
  std::vector<v1::ScheduledMatch> out;
  for (uint32_t d = 0; d < deals; ++d)
    for (uint32_t p = 0; p < pairings.size(); ++p)
      for (uint32_t r = 0; r < rotations; ++r) out.push_back(scheduled_match(t, pairings, p, d, r));
  return out;
}

namespace {

// C(n, k), or UINT64_MAX if it does not fit. Every partial product C(n-k+i, i) is an integer;
// an overflow means far more matches than any limit, so it saturates.
uint64_t choose(uint64_t n, uint64_t k) {
  if (n < k) return 0;
  uint64_t c = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    if (__builtin_mul_overflow(c, n - k + i, &c)) return UINT64_MAX;
    c /= i;
  }
  return c;
}

}  // namespace

std::string bot_match_id(uint64_t tournament_seed, const std::string& match_id) {
  // The second half of the key is fixed: the seed is the secret.
  const uint64_t h = siphash24(tournament_seed, 0x616c6c6669766573ULL, match_id);
  char text[20];
  std::snprintf(text, sizeof text, "m%016llx", static_cast<unsigned long long>(h));
  return text;
}

uint64_t schedule_size(const TournamentDef& t) {
  const uint64_t k = static_cast<uint64_t>(bots_per_pairing(t.config.format));
  const uint64_t rotations = static_cast<uint64_t>(seat_rotations(t.config.format));
  // As pairings_of counts them: every k-combination, or each candidate with every
  // (k-1)-combination of baselines.
  uint64_t candidates = 0;
  for (size_t i = 0; i < t.candidate.size(); ++i) candidates += t.candidate[i] ? 1 : 0;
  uint64_t pairings = 0;
  if (candidates == 0) {
    pairings = choose(t.bots.size(), k);
  } else {
    const uint64_t per = choose(t.bots.size() - candidates, k - 1);
    if (per == UINT64_MAX || __builtin_mul_overflow(per, candidates, &pairings)) return UINT64_MAX;
  }
  if (pairings == UINT64_MAX) return UINT64_MAX;
  uint64_t total = 0;
  const uint64_t per_pairing = t.proto.matches_per_pairing() / rotations * rotations;
  if (__builtin_mul_overflow(pairings, per_pairing, &total)) return UINT64_MAX;
  return total;
}

Schedule::Schedule(const TournamentDef& t)
    : t_(&t),
      rotations_(static_cast<uint32_t>(seat_rotations(t.config.format))),
      k_(bots_per_pairing(t.config.format)) {
  if (std::find(t.candidate.begin(), t.candidate.end(), true) != t.candidate.end()) {
    stored_ = pairings_of(t);
    pairings_ = stored_.size();
  } else {
    pairings_ = choose(t.bots.size(), static_cast<uint64_t>(k_));
  }
  const uint64_t deals = t.proto.matches_per_pairing() / rotations_;
  size_ = pairings_ * deals * rotations_;
  for (size_t b = 0; b < t.bots.size(); ++b)
    bot_index_[t.bots[b].display_name] = static_cast<int>(b);
}

std::optional<uint64_t> Schedule::ordinal_of(const v1::ScheduledMatch& m) const {
  const Format f = t_->config.format;
  if (m.seat_bots_size() != num_players(f) || m.rotation() >= rotations_) return std::nullopt;
  // In rotation r seat s holds member (s + r) mod k: member j sits in seat (j - r) mod k.
  std::vector<int> members(static_cast<size_t>(k_), -1);
  for (int j = 0; j < k_; ++j) {
    const int seat = (j - static_cast<int>(m.rotation()) % k_ + k_) % k_;
    const auto it = bot_index_.find(m.seat_bots(seat));
    if (it == bot_index_.end()) return std::nullopt;
    members[static_cast<size_t>(j)] = it->second;
  }
  uint64_t p = 0;
  if (stored_.empty()) {
    for (int j = 0; j < k_; ++j) {
      if (j > 0 && members[static_cast<size_t>(j)] <= members[static_cast<size_t>(j - 1)])
        return std::nullopt;
      p += choose(static_cast<uint64_t>(members[static_cast<size_t>(j)]),
                  static_cast<uint64_t>(j + 1));
    }
  } else {
    const auto it = std::find(stored_.begin(), stored_.end(), members);
    if (it == stored_.end()) return std::nullopt;
    p = static_cast<uint64_t>(it - stored_.begin());
  }
  const uint64_t ordinal = (uint64_t{m.deal()} * pairings_ + p) * rotations_ + m.rotation();
  if (p >= pairings_ || ordinal >= size_) return std::nullopt;
  // The seats (partnerships: both seats of a side) and the id must be the scheduled ones.
  const v1::ScheduledMatch expected = at(ordinal);
  if (expected.match_id() != m.match_id() ||
      !std::equal(expected.seat_bots().begin(), expected.seat_bots().end(), m.seat_bots().begin(),
                  m.seat_bots().end()))
    return std::nullopt;
  return ordinal;
}

std::vector<int> Schedule::pairing(uint64_t p) const {
  if (!stored_.empty()) return stored_[p];
  // Colexicographic unranking: p = sum over i of C(c_i, i + 1), c_0 < c_1 < ... < c_(k-1).
  std::vector<int> members(static_cast<size_t>(k_));
  uint64_t rest = p;
  uint64_t top = t_->bots.size();
  for (int i = k_ - 1; i >= 0; --i) {
    const auto need = static_cast<uint64_t>(i + 1);
    uint64_t c = top;  // the largest c < top with C(c, i + 1) <= rest
    while (c > 0 && choose(c - 1, need) > rest) --c;
    --c;
    rest -= choose(c, need);
    members[static_cast<size_t>(i)] = static_cast<int>(c);
    top = c;
  }
  return members;
}

v1::ScheduledMatch Schedule::at(uint64_t ordinal) const {
  const uint32_t rotation = static_cast<uint32_t>(ordinal % rotations_);
  const uint64_t slot = ordinal / rotations_;
  const auto pairing = static_cast<uint32_t>(slot % pairings_);
  const auto deal = static_cast<uint32_t>(slot / pairings_);
  return match_of(*t_, this->pairing(pairing), pairings_, pairing, deal, rotation);
}

namespace {

// Splits `text` into `seats` bot names joined by '-' (every split is tried, a name may hold
// '-'), each a key of `bots`; calls `found` with each complete split until it returns true.
bool split_seats(std::string_view text, int seats, const std::map<std::string, int>& bots,
                 std::vector<std::string>& names,
                 const std::function<bool(const std::vector<std::string>&)>& found) {
  if (seats == 1) {
    if (!bots.count(std::string(text))) return false;
    names.emplace_back(text);
    const bool done = found(names);
    names.pop_back();
    return done;
  }
  for (size_t dash = text.find('-'); dash != std::string_view::npos;
       dash = text.find('-', dash + 1)) {
    if (!bots.count(std::string(text.substr(0, dash)))) continue;
    names.emplace_back(text.substr(0, dash));
    const bool done = split_seats(text.substr(dash + 1), seats - 1, bots, names, found);
    names.pop_back();
    if (done) return true;
  }
  return false;
}

// The digits of `text` as a number below 2^32, or nothing.
std::optional<uint32_t> small_number(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(v);
}

}  // namespace

std::optional<uint64_t> Schedule::ordinal_of_id(const std::string& id) const {
  const size_t r = id.rfind("-r");
  if (r == std::string::npos) return std::nullopt;
  const size_t d = id.rfind("-d", r == 0 ? 0 : r - 1);
  if (d == std::string::npos || d >= r) return std::nullopt;
  const auto deal = small_number(std::string_view(id).substr(d + 2, r - d - 2));
  const auto rotation = small_number(std::string_view(id).substr(r + 2));
  if (!deal || !rotation) return std::nullopt;
  std::optional<uint64_t> out;
  std::vector<std::string> names;
  split_seats(std::string_view(id).substr(0, d), num_players(t_->config.format), bot_index_, names,
              [&](const std::vector<std::string>& seats) {
                v1::ScheduledMatch m;
                for (const std::string& s : seats) m.add_seat_bots(s);
                m.set_deal(*deal);
                m.set_rotation(*rotation);
                m.set_match_id(id);
                out = ordinal_of(m);
                return out.has_value();
              });
  return out;
}

ShardSlice::ShardSlice(uint64_t schedule_size, uint32_t rotations, int index, int count)
    : rotations_(std::max<uint32_t>(1, rotations)),
      index_(static_cast<uint64_t>(index)),
      count_(static_cast<uint64_t>(std::max(1, count))) {
  const uint64_t groups = schedule_size / rotations_;
  if (groups > index_) size_ = ((groups - index_ - 1) / count_ + 1) * rotations_;
}

}  // namespace allfives::referee
