#include "tournament/standings.h"

#include "allfives/core/types.h"
#include "allfives/wire/convert.h"
#include "log/json_text.h"
#include "match/match_result.h"
#include "tournament/index_entry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace allfives::referee {
namespace {

constexpr double kEloPerNatural = 400.0 / 2.302585092994045684;  // 400 / ln 10
constexpr double kZ95 = 1.959963984540054;

struct Shape {
  int seats = 0;
  int sides = 0;
};

// The core's shape of a logged format; {0, 0} for a value it does not know.
Shape shape_of(v1::Format format) {
  Format f;
  if (!wire::from_proto(format, f, nullptr)) return {0, 0};
  return {num_players(f), num_sides(f)};
}

int side_of(v1::Format format, int seat) {
  Format f;
  return wire::from_proto(format, f, nullptr) ? allfives::side_of(f, seat) : seat;
}

// One match reduced to what the standings need; empty `why` if it is usable.
struct Match {
  std::vector<std::vector<std::string>> side_bots;  // distinct bots per side, in seat order
  std::vector<double> scores;                       // per side
  std::vector<int> place;                           // per side; smaller is better
  std::string fault_bot;                            // "" if no fault
  int fault_kind = 0;
  std::string why;
};

Match reduce(const v1::IndexEntry& e) {
  Match m;
  const Shape shape = shape_of(e.format());
  const auto& seats = e.match().seat_bots();
  if (e.reason() == v1::MATCH_END_REASON_ABORTED) {
    m.why = "aborted, no result";
    return m;
  }
  if (shape.seats == 0) {
    m.why = "unknown format";
    return m;
  }
  if (seats.size() != shape.seats || e.scores_size() != shape.sides ||
      (e.placements_size() != 0 && e.placements_size() != shape.sides)) {
    m.why = "seat_bots, scores or placements do not fit the format";
    return m;
  }
  if (e.fault_seat() < -1 || e.fault_seat() >= shape.seats) {
    m.why = "fault_seat out of range";
    return m;
  }
  m.side_bots.resize(shape.sides);
  std::map<std::string, int> side_of_bot;
  for (int seat = 0; seat < shape.seats; ++seat) {
    const std::string& bot = seats[seat];
    const int side = side_of(e.format(), seat);
    auto [it, fresh] = side_of_bot.emplace(bot, side);
    if (fresh) {
      m.side_bots[side].push_back(bot);
    } else if (it->second != side) {
      m.why = "bot '" + bot + "' sits on two sides";
      return m;
    }
  }
  for (const uint32_t s : e.scores()) m.scores.push_back(s);
  const int faulting_side = e.fault_seat() >= 0 ? side_of(e.format(), e.fault_seat()) : -1;
  if (e.placements_size() == shape.sides) {
    m.place.assign(e.placements().begin(), e.placements().end());
  } else {
    m.place = placements(std::vector<int>(m.scores.begin(), m.scores.end()), faulting_side);
  }
  // A forfeit is a loss whatever the placements say: the faulting side is strictly last.
  if (faulting_side >= 0) {
    m.place[faulting_side] = shape.sides + 1;
    m.fault_bot = seats[e.fault_seat()];
    m.fault_kind = v1::FaultKind_IsValid(e.fault_kind()) ? e.fault_kind() : 0;
  }
  return m;
}

double log_sigmoid(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}
double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

using Matrix = std::vector<std::vector<double>>;

// Cholesky factor L (lower) of a symmetric positive definite matrix; false if it is not.
bool cholesky(const Matrix& a, Matrix& l) {
  const size_t n = a.size();
  l.assign(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j <= i; ++j) {
      double s = a[i][j];
      for (size_t k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      if (i == j) {
        if (!(s > 0)) return false;
        l[i][i] = std::sqrt(s);
      } else {
        l[i][j] = s / l[j][j];
      }
    }
  }
  return true;
}

// Solves L L' x = b.
std::vector<double> cholesky_solve(const Matrix& l, std::vector<double> b) {
  const size_t n = l.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < i; ++k) b[i] -= l[i][k] * b[k];
    b[i] /= l[i][i];
  }
  for (size_t i = n; i-- > 0;) {
    for (size_t k = i + 1; k < n; ++k) b[i] -= l[k][i] * b[k];
    b[i] /= l[i][i];
  }
  return b;
}

struct EloFit {
  std::vector<double> elo;   // centred
  std::vector<double> ci95;  // half widths
  Matrix covariance;         // of the uncentred ratings (natural units); differences use it
};

// The Bradley-Terry model with the prior of kEloPriorDraws (a draw against a virtual opponent
// of rating 0 for each bot). n[i][j]: games between i and j; w[i][j]: i's score in them
// (wins + draws / 2). Ratings in natural units.
class BradleyTerry {
 public:
  BradleyTerry(const Matrix& n, const Matrix& w) : n_(n), w_(w), m_(n.size()) {}

  double loglik(const std::vector<double>& t) const {
    double l = 0;
    for (size_t i = 0; i < m_; ++i) {
      l += k_ * 0.5 * (log_sigmoid(t[i]) + log_sigmoid(-t[i]));
      for (size_t j = i + 1; j < m_; ++j)
        if (n_[i][j] > 0)
          l += w_[i][j] * log_sigmoid(t[i] - t[j]) + w_[j][i] * log_sigmoid(t[j] - t[i]);
    }
    return l;
  }

  // The negated Hessian (the observed information) and, if asked, the gradient at t.
  Matrix information(const std::vector<double>& t, std::vector<double>* grad) const {
    Matrix a(m_, std::vector<double>(m_, 0.0));
    if (grad) grad->assign(m_, 0.0);
    for (size_t i = 0; i < m_; ++i) {
      const double s = sigmoid(t[i]);
      a[i][i] += k_ * s * (1 - s);
      if (grad) (*grad)[i] += k_ * (0.5 - s);
      for (size_t j = 0; j < m_; ++j) {
        if (j == i || n_[i][j] <= 0) continue;
        const double p = sigmoid(t[i] - t[j]);
        a[i][i] += n_[i][j] * p * (1 - p);
        a[i][j] -= n_[i][j] * p * (1 - p);
        if (grad) (*grad)[i] += w_[i][j] - n_[i][j] * p;
      }
    }
    return a;
  }

  // The maximum of the log-likelihood, by Newton's method with backtracking (it is strictly
  // concave thanks to the prior).
  std::vector<double> maximum() const {
    std::vector<double> theta(m_, 0.0);
    double current = loglik(theta);
    Matrix l;
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<double> grad;
      const Matrix a = information(theta, &grad);
      if (!cholesky(a, l)) break;  // cannot happen with k > 0
      const std::vector<double> step = cholesky_solve(l, grad);
      double size = 0;
      for (double d : step) size = std::max(size, std::abs(d));
      const double before = current;
      if (!line_search(theta, step, current) || size < 1e-12) break;
      // Converged: rounding noise keeps Newton's steps from reaching 1e-12 on larger fits,
      // where each further step only re-solves the same point.
      if (size < 1e-9 || current - before <= 1e-15 * std::abs(before)) break;
    }
    return theta;
  }

 private:
  // Moves theta along step, halving it until the likelihood does not fall; false if it never
  // stops falling.
  bool line_search(std::vector<double>& theta, const std::vector<double>& step,
                   double& current) const {
    double t = 1.0;
    for (int halvings = 0; halvings < 60; ++halvings, t /= 2) {
      std::vector<double> next = theta;
      for (size_t i = 0; i < m_; ++i) next[i] += t * step[i];
      const double value = loglik(next);
      if (value >= current) {
        theta = std::move(next);
        current = value;
        return true;
      }
    }
    return false;
  }

  const Matrix& n_;
  const Matrix& w_;
  const size_t m_;
  const double k_ = kEloPriorDraws;
};

// The inverse of the information at the maximum (the covariance of the uncentred ratings), and
// from it the 95% half widths of the centred ratings: C A^-1 C with C = I - 11'/m. False when
// the information is not positive definite.
bool fit_covariance(const Matrix& information, EloFit& fit) {
  const size_t m = information.size();
  Matrix l;
  if (!cholesky(information, l)) return false;
  Matrix inv(m);
  for (size_t j = 0; j < m; ++j) {
    std::vector<double> e(m, 0.0);
    e[j] = 1.0;
    inv[j] = cholesky_solve(l, e);  // column j (the matrix is symmetric)
  }
  fit.covariance = inv;
  std::vector<double> row_mean(m, 0.0);
  double all_mean = 0;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < m; ++j) row_mean[i] += inv[i][j];
    row_mean[i] /= static_cast<double>(m);
    all_mean += row_mean[i];
  }
  all_mean /= static_cast<double>(m);
  for (size_t i = 0; i < m; ++i) {
    const double var = std::max(0.0, inv[i][i] - 2 * row_mean[i] + all_mean);
    fit.ci95[i] = kZ95 * std::sqrt(var) * kEloPerNatural;
  }
  return true;
}

// Bradley-Terry ratings (centred, in Elo) with their 95% intervals.
EloFit fit_elo(const Matrix& n, const Matrix& w) {
  const size_t m = n.size();
  const BradleyTerry model(n, w);
  const std::vector<double> theta = model.maximum();
  EloFit fit;
  fit.elo.assign(m, 0.0);
  fit.ci95.assign(m, 0.0);
  if (m == 0) return fit;
  double mean = 0;
  for (double t : theta) mean += t;
  mean /= static_cast<double>(m);
  for (size_t i = 0; i < m; ++i) fit.elo[i] = (theta[i] - mean) * kEloPerNatural;
  fit_covariance(model.information(theta, nullptr), fit);
  return fit;
}

// Sort key that makes ratings equal up to rounding noise compare equal.
long long elo_key(double elo) {
  return std::llround(elo * 1e6);
}

std::string list_text(const google::protobuf::RepeatedField<uint32_t>& values) {
  std::string out = "[";
  for (int i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

// The seats, sides and bots of an entry against its format and the tournament's bots.
std::string seats_problem(const v1::IndexEntry& e, const EntryExpectations& x, Shape shape) {
  const auto& seats = e.match().seat_bots();
  if (seats.size() != shape.seats || e.scores_size() != shape.sides ||
      (e.placements_size() != 0 && e.placements_size() != shape.sides))
    return "its format " + v1::Format_Name(e.format()) + " has " + std::to_string(shape.seats) +
           " seats and " + std::to_string(shape.sides) + " sides, but the line has " +
           std::to_string(seats.size()) + " seat bots, " + std::to_string(e.scores_size()) +
           " scores and " + std::to_string(e.placements_size()) + " placements";
  std::map<std::string, int> side_of_bot;
  for (int seat = 0; seat < shape.seats; ++seat) {
    const std::string& bot = seats[seat];
    if (bot.empty()) return "seat " + std::to_string(seat) + " has no bot";
    if (!x.bots.empty() && !x.bots.count(bot))
      return "seat " + std::to_string(seat) + ": '" + bot + "' is not a bot of the tournament";
    const auto [it, fresh] = side_of_bot.emplace(bot, side_of(e.format(), seat));
    if (!fresh && it->second != side_of(e.format(), seat))
      return "bot '" + bot + "' sits on two sides";
  }
  return "";
}

// The scores, the fault, the placements and the winner against each other and the rules.
std::string result_problem(const v1::IndexEntry& e, const EntryExpectations& x, Shape shape) {
  const int target = x.target > 0 ? x.target : kMaxTarget;
  const int most = target - 1 + kMaxPointsAtOnce;
  int at_target = 0;
  for (int side = 0; side < shape.sides; ++side) {
    const auto score = static_cast<int64_t>(e.scores(side));
    if (score > most)
      return "side " + std::to_string(side) + " scored " + std::to_string(score) +
             ", more than a match can score (" + std::to_string(most) + ": the target " +
             std::to_string(target) + " - 1 + " + std::to_string(kMaxPointsAtOnce) + ")";
    at_target += score >= target ? 1 : 0;
  }
  if (x.target > 0 && at_target != (e.reason() == v1::MATCH_END_REASON_TARGET ? 1 : 0))
    return "its scores " + list_text(e.scores()) + " do not fit its end " +
           v1::MatchEndReason_Name(e.reason()) + " at the target " + std::to_string(x.target);
  if ((e.fault_seat() >= 0) != (e.reason() == v1::MATCH_END_REASON_FAULT))
    return "a fault and the end reason FAULT go together, but fault_seat is " +
           std::to_string(e.fault_seat()) + " and the reason " +
           v1::MatchEndReason_Name(e.reason());
  if (e.fault_seat() < -1 || e.fault_seat() >= shape.seats)
    return "fault_seat " + std::to_string(e.fault_seat()) + " is not a seat";
  if (e.fault_seat() >= 0 &&
      (!v1::FaultKind_IsValid(e.fault_kind()) || e.fault_kind() == v1::FAULT_KIND_UNSPECIFIED))
    return "fault_kind " + std::to_string(e.fault_kind()) + " is not a fault kind";
  const int faulting_side = e.fault_seat() >= 0 ? side_of(e.format(), e.fault_seat()) : -1;
  const std::vector<int> place =
      placements(std::vector<int>(e.scores().begin(), e.scores().end()), faulting_side);
  if (e.placements_size() > 0 &&
      !std::equal(place.begin(), place.end(), e.placements().begin(), e.placements().end()))
    return "placements " + list_text(e.placements()) + " do not follow from the scores " +
           list_text(e.scores()) +
           (faulting_side >= 0 ? " and the fault of side " + std::to_string(faulting_side) : "");
  const auto firsts = std::count(place.begin(), place.end(), 1);
  const int winner =
      firsts == 1 ? static_cast<int>(std::find(place.begin(), place.end(), 1) - place.begin()) : -1;
  if (e.placements_size() > 0 && e.winner_side() != winner)
    return "winner_side " + std::to_string(e.winner_side()) + " does not follow from the scores " +
           list_text(e.scores()) + " (side " + std::to_string(winner) + ")";
  const int max_hands = x.max_hands > 0 ? x.max_hands : kMaxHandLimit;
  if (e.hands_played() > static_cast<uint32_t>(max_hands))
    return "hands_played " + std::to_string(e.hands_played()) + " is beyond the limit of " +
           std::to_string(max_hands);
  return "";
}

}  // namespace

std::string entry_problem(const v1::IndexEntry& e, const EntryExpectations& x) {
  if (e.reason() == v1::MATCH_END_REASON_ABORTED ||
      e.reason() == v1::MATCH_END_REASON_UNSPECIFIED || !v1::MatchEndReason_IsValid(e.reason()))
    return "its end reason " + std::to_string(e.reason()) + " is no result";
  const Shape shape = shape_of(e.format());
  if (shape.seats == 0) return "format " + std::to_string(e.format()) + " is not a format";
  if (x.format != v1::FORMAT_UNSPECIFIED && e.format() != x.format)
    return "its format " + v1::Format_Name(e.format()) + " is not the tournament's, " +
           v1::Format_Name(x.format);
  if (std::string why = seats_problem(e, x, shape); !why.empty()) return why;
  return result_problem(e, x, shape);
}

void StandingsAccumulator::add(const v1::IndexEntry& e) {
  if (const std::string why = entry_problem(e); !why.empty()) {
    s_.notes.push_back("skipped match '" + e.match().match_id() + "': " + why);
    return;
  }
  const Match m = reduce(e);
  if (!m.why.empty()) {
    s_.notes.push_back("skipped match '" + e.match().match_id() + "': " + m.why);
    return;
  }
  mirrored_.add(e);
  if (e.timing_size() == e.match().seat_bots_size())
    for (int seat = 0; seat < e.timing_size(); ++seat) {
      BotStanding& r = rows_[e.match().seat_bots(seat)];
      r.timing.merge(decision_timing(e.timing(seat)));
    }
  if (first_) {
    s_.tournament_name = e.tournament_name();
    s_.tournament_hash = e.tournament_hash();
    s_.format = e.format();
    first_ = false;
  } else if (s_.format != e.format()) {
    s_.format = v1::FORMAT_UNSPECIFIED;
  }
  ++s_.matches;
  const int sides = static_cast<int>(m.side_bots.size());
  const int best = *std::min_element(m.place.begin(), m.place.end());
  const int at_best = static_cast<int>(std::count(m.place.begin(), m.place.end(), best));
  for (int side = 0; side < sides; ++side) {
    double against = 0;
    for (int o = 0; o < sides; ++o)
      if (o != side) against += m.scores[o];
    against /= sides - 1;
    for (const std::string& bot : m.side_bots[side]) {
      BotStanding& r = rows_[bot];
      r.name = bot;
      ++r.matches;
      if (m.place[side] != best) {
        ++r.losses;
      } else if (at_best == 1) {
        ++r.wins;
      } else {
        ++r.draws;
      }
      r.points_for += m.scores[side];
      r.points_against += against;
    }
  }
  if (!m.fault_bot.empty()) {
    BotStanding& r = rows_[m.fault_bot];
    ++r.forfeits[m.fault_kind];
    ++r.forfeits_total;
  }
  for (int a = 0; a < sides; ++a)
    for (int b = a + 1; b < sides; ++b)
      for (const std::string& x : m.side_bots[a])
        for (const std::string& y : m.side_bots[b]) {
          HeadToHead& xy = pairs_[{x, y}];
          HeadToHead& yx = pairs_[{y, x}];
          if (m.place[a] < m.place[b]) {
            ++xy.wins;
            ++yx.losses;
          } else if (m.place[a] > m.place[b]) {
            ++xy.losses;
            ++yx.wins;
          } else {
            ++xy.draws;
            ++yx.draws;
          }
        }
}

namespace {

using PairTable = std::map<std::pair<std::string, std::string>, HeadToHead>;

// The rows with their games, Elo and intervals (Bradley-Terry over the pairwise games, bots in
// name order), ranked by Elo then name, neighbours the fit cannot tell apart marked tied, and
// the covariance of the ratings in rank order, into s.
void rank_bots(std::map<std::string, BotStanding> rows, const PairTable& pairs, Standings& s) {
  std::vector<std::string> names;
  for (const auto& [name, row] : rows) names.push_back(name);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < names.size(); ++i) index[names[i]] = i;
  Matrix n(names.size(), std::vector<double>(names.size(), 0.0));
  Matrix w = n;
  for (const auto& [pair, h] : pairs) {
    const size_t i = index[pair.first];
    const size_t j = index[pair.second];
    n[i][j] = h.games();
    w[i][j] = h.wins + 0.5 * h.draws;
    rows[pair.first].games += h.games();
    rows[pair.first].game_score += h.wins + 0.5 * h.draws;
  }
  const EloFit fit = fit_elo(n, w);
  for (size_t i = 0; i < names.size(); ++i) {
    rows[names[i]].elo = fit.elo[i];
    rows[names[i]].elo_ci95 = fit.ci95[i];
  }
  // Can the fit tell two bots apart? The 95% interval of their rating difference.
  auto tied = [&](const std::string& a, const std::string& b) {
    const size_t i = index[a], j = index[b];
    if (fit.covariance.empty()) return true;
    const double var = fit.covariance[i][i] + fit.covariance[j][j] - 2 * fit.covariance[i][j];
    const double diff = std::abs(fit.elo[i] - fit.elo[j]) / kEloPerNatural;
    return diff <= kZ95 * std::sqrt(std::max(0.0, var));
  };
  for (auto& [name, row] : rows) s.bots.push_back(std::move(row));
  std::stable_sort(s.bots.begin(), s.bots.end(), [](const BotStanding& a, const BotStanding& b) {
    if (elo_key(a.elo) != elo_key(b.elo)) return elo_key(a.elo) > elo_key(b.elo);
    return a.name < b.name;
  });
  for (size_t i = 0; i + 1 < s.bots.size(); ++i)
    if (tied(s.bots[i].name, s.bots[i + 1].name))
      s.bots[i].tied = s.bots[i].tied_with_next = s.bots[i + 1].tied = true;
  if (fit.covariance.empty()) return;
  s.elo_covariance.assign(s.bots.size(), std::vector<double>(s.bots.size(), 0.0));
  for (size_t i = 0; i < s.bots.size(); ++i)
    for (size_t j = 0; j < s.bots.size(); ++j)
      s.elo_covariance[i][j] = fit.covariance[index[s.bots[i].name]][index[s.bots[j].name]] *
                               kEloPerNatural * kEloPerNatural;
}

// The cross table in rank order.
void fill_cross(const PairTable& pairs, Standings& s) {
  s.cross.assign(s.bots.size(), std::vector<HeadToHead>(s.bots.size()));
  for (size_t i = 0; i < s.bots.size(); ++i)
    for (size_t j = 0; j < s.bots.size(); ++j) {
      const auto it = pairs.find({s.bots[i].name, s.bots[j].name});
      if (it != pairs.end()) s.cross[i][j] = it->second;
    }
}

// Pairings, the higher ranked bot first: pentanomial over mirrored pairs where there are any,
// else trinomial over the games.
void fill_pairings(const PairBook& book, Standings& s) {
  const auto& mirrored = book.pairings();
  for (size_t i = 0; i < s.bots.size(); ++i)
    for (size_t j = i + 1; j < s.bots.size(); ++j) {
      const HeadToHead& h = s.cross[i][j];
      if (h.games() == 0) continue;
      PairingStats p;
      p.bot = s.bots[i].name;
      p.opponent = s.bots[j].name;
      p.games = Trinomial{h.wins, h.draws, h.losses};
      const bool in_order = p.bot < p.opponent;
      const auto it =
          mirrored.find(in_order ? std::pair{p.bot, p.opponent} : std::pair{p.opponent, p.bot});
      if (it != mirrored.end() && it->second.pairs() > 0) {
        p.pentanomial = true;
        p.pairs = in_order ? it->second : it->second.mirrored();
        p.estimate = estimate(p.pairs);
      } else {
        p.estimate = estimate(p.games);
      }
      s.pairings.push_back(std::move(p));
    }
  if (book.unpaired() > 0 && !mirrored.empty())
    s.notes.push_back(std::to_string(book.unpaired()) +
                      " match(es) without their mirrored partner are left out of the pair "
                      "statistics");
}

}  // namespace

Standings StandingsAccumulator::finish() const {
  Standings s = s_;
  rank_bots(rows_, pairs_, s);
  fill_cross(pairs_, s);
  fill_pairings(mirrored_, s);
  return s;
}

bool anchor_ratings(Standings& s, const std::string& name, double elo, std::string* error) {
  size_t a = s.bots.size();
  for (size_t i = 0; i < s.bots.size(); ++i)
    if (s.bots[i].name == name) a = i;
  if (a == s.bots.size()) {
    if (error) *error = "the anchor '" + name + "' is not a bot of these standings";
    return false;
  }
  const double shift = elo - s.bots[a].elo;
  const auto& c = s.elo_covariance;
  for (size_t i = 0; i < s.bots.size(); ++i) {
    s.bots[i].elo += shift;
    if (c.size() == s.bots.size())
      s.bots[i].elo_ci95 = kZ95 * std::sqrt(std::max(0.0, c[i][i] + c[a][a] - 2 * c[i][a]));
  }
  s.anchor = name + " = " + fixed_text(elo, 0);
  return true;
}

Standings compute_standings(const std::vector<v1::IndexEntry>& entries) {
  StandingsAccumulator acc;
  for (const v1::IndexEntry& e : entries) acc.add(e);
  return acc.finish();
}

}  // namespace allfives::referee
