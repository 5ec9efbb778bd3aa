#include "review/match_review.h"

#include <algorithm>
#include <cmath>

#include "allfives/core/resample.h"
#include "allfives/core/rng.h"
#include "allfives/wire/convert.h"

namespace allfives::referee {

namespace {

// Worlds used to measure what a play hands the next seat: enough for a mean within about half
// a point, cheap since nothing is rolled out.
constexpr int kHandedWorlds = 100;
// A play that leaves the next seat this much more to score than the best play "hands" it.
constexpr double kHandedAtLeast = 2.5;
// The end of a hand, for the phases: the deciding seat holds at most this many tiles.
constexpr int kEndPhaseTiles = 3;

// The most the seat to move in `s` can score with its next play, or 0 if that seat is on
// `side` (a partner's score is no gift) or the hand is over.
int next_seat_best(const State& s, int hand, int side) {
  if (s.is_terminal() || s.hand_index() != hand) return 0;
  if (side_of(s.format(), s.seat_to_move()) == side) return 0;
  int best = 0;
  for (const Play& p : s.legal_plays()) best = std::max(best, points_after(s.line(), p));
  return best;
}

// The next seat's expected best score after `a` minus after `b`, over the evaluation's own
// first worlds.
double handed_points(const View& view, const Knowledge& knowledge, Play a, Play b, uint64_t seed,
                     int worlds) {
  const WorldSampler sampler(view, &knowledge);
  if (!sampler.ok()) return 0;
  State world = State::new_match(view.config(), 0);
  double sum = 0;
  int used = 0;
  for (int w = 0; w < worlds; ++w) {
    SplitMix64 rng(derive_seed(seed, static_cast<uint64_t>(w)));
    if (!sampler.sample(rng, world)) break;
    State after_a = world, after_b = world;
    after_a.apply(a);
    after_b.apply(b);
    sum += next_seat_best(after_a, view.hand_index(), view.side()) -
           next_seat_best(after_b, view.hand_index(), view.side());
    ++used;
  }
  return used ? sum / used : 0;
}

v1::LossKind loss_kind(const v1::ReviewDecision& d, Play played, Play best) {
  if (d.played_option() == d.best_option()) return v1::LOSS_KIND_NONE;
  const auto& o = d.options();
  if (o[static_cast<int>(d.best_option())].points_now() >
      o[static_cast<int>(d.played_option())].points_now())
    return v1::LOSS_KIND_SCORE_MISSED;
  if (d.handed_points() >= kHandedAtLeast) return v1::LOSS_KIND_SCORE_HANDED;
  if (d.phase() == v1::HAND_PHASE_END && played.tile.pips() < best.tile.pips())
    return v1::LOSS_KIND_WEIGHT_KEPT;
  return v1::LOSS_KIND_OTHER;
}

// The public part of a record as the core's event, for a seat's Knowledge; false for records
// that tell it nothing.
bool public_event(const v1::LogRecord& r, Event& e) {
  e = Event{};
  if (r.has_play()) {
    e.kind = EventKind::kPlay;
    e.seat = static_cast<int8_t>(r.play().seat());
    e.hand_index = static_cast<int16_t>(r.play().hand_index());
    Tile tile;
    if (!wire::from_proto(r.play().play().tile(), tile, nullptr)) return false;
    e.play = Play{tile, r.play().play().end() == v1::END_RIGHT ? End::kRight : End::kLeft};
    return true;
  }
  if (r.has_draw()) {
    e.kind = EventKind::kDraw;
    e.seat = static_cast<int8_t>(r.draw().seat());
    e.count = static_cast<int16_t>(r.draw().tiles_size());  // the count, never the tiles
    return true;
  }
  if (r.has_pass()) {
    e.kind = EventKind::kPass;
    e.seat = static_cast<int8_t>(r.pass().seat());
    return true;
  }
  return false;
}

// The engine's settings and the marks' thresholds, as the header records them.
void record_settings(const ReviewSettings& settings, v1::ReviewHeader& h) {
  h.set_worlds(static_cast<uint32_t>(settings.eval.worlds));
  h.set_seed(settings.eval.seed);
  h.set_epsilon_permille(static_cast<uint32_t>(settings.eval.epsilon_permille));
  h.set_exact_tiles(static_cast<uint32_t>(settings.eval.exact_tiles));
  h.set_exact_boneyard(static_cast<uint32_t>(settings.eval.exact_boneyard));
  h.set_model_candidates(static_cast<uint32_t>(settings.eval.candidates));
  h.set_model_beta(settings.eval.model.beta);
  h.set_model_epsilon(settings.eval.model.epsilon);
  h.set_inaccuracy(settings.thresholds.inaccuracy);
  h.set_mistake(settings.thresholds.mistake);
  h.set_blunder(settings.thresholds.blunder);
}

bool wanted(const std::vector<int>& seats, int seat) {
  return seats.empty() || std::find(seats.begin(), seats.end(), seat) != seats.end();
}

}  // namespace

v1::ReviewDecision review_decision(const View& view, const Knowledge& knowledge, Play played,
                                   bool first_of_hand, uint64_t seed,
                                   const ReviewSettings& settings, engine::HandSolver& solver,
                                   engine::Evaluation& scratch) {
  engine::EvalConfig config = settings.eval;
  config.seed = seed;
  engine::evaluate(view, &knowledge, config, solver, scratch);
  v1::ReviewDecision d;
  d.set_seat(static_cast<uint32_t>(view.seat()));
  d.set_hand_index(static_cast<uint32_t>(view.hand_index()));
  const int n = static_cast<int>(scratch.options.size());
  int played_at = 0, best = 0;
  for (int c = 0; c < n; ++c) {
    const engine::OptionValue& o = scratch.options[c];
    if (o.play == played) played_at = c;
    v1::ReviewOption* r = d.add_options();
    *r->mutable_play() = wire::to_proto(o.play);
    r->set_points_now(static_cast<uint32_t>(view.points_after(o.play)));
    r->set_points(o.points);
    r->set_points_se(std::isfinite(o.points_se) ? o.points_se : 0);
    r->set_win(o.win);
    r->set_win_se(std::isfinite(o.win_se) ? o.win_se : 0);
    if (o.points > scratch.options[best].points) best = c;
  }
  // Among equals the play made is the best.
  if (n > 0 && scratch.options[played_at].points >= scratch.options[best].points) best = played_at;
  d.set_played_option(static_cast<uint32_t>(played_at));
  d.set_best_option(static_cast<uint32_t>(best));
  d.set_exact(scratch.exact);
  d.set_worlds(static_cast<uint32_t>(scratch.worlds));
  d.set_solved_worlds(static_cast<uint32_t>(scratch.solved_worlds));
  d.set_phase(first_of_hand                          ? v1::HAND_PHASE_OPENING
              : view.hand().size() <= kEndPhaseTiles ? v1::HAND_PHASE_END
                                                     : v1::HAND_PHASE_MIDDLE);
  if (n == 0 || best == played_at) return d;
  const auto se = [&](engine::Utility u) {
    const double s = scratch.difference_se(best, played_at, u);
    return std::isfinite(s) ? s : 0.0;
  };
  d.set_loss(scratch.options[best].points - scratch.options[played_at].points);
  d.set_loss_se(se(engine::Utility::kPoints));
  d.set_win_loss(scratch.options[best].win - scratch.options[played_at].win);
  d.set_win_loss_se(se(engine::Utility::kWin));
  // A seat that knows everything has nothing to sample; its one world is the truth.
  const bool noisy = !scratch.exact && scratch.worlds >= 2;
  d.set_mark(noisy || scratch.exact ? mark_for(d.loss(), d.loss_se(), settings.thresholds)
                                    : v1::REVIEW_MARK_NONE);
  d.set_handed_points(handed_points(view, knowledge, played, scratch.options[best].play, seed,
                                    std::min(kHandedWorlds, std::max(1, config.worlds))));
  d.set_kind(loss_kind(d, played, scratch.options[best].play));
  return d;
}

ReviewFile review_match(const Replay& replay, std::string_view log_bytes,
                        const std::vector<int>& seats, const ReviewSettings& settings,
                        const std::function<void(int, int)>& progress) {
  ReviewFile out;
  v1::ReviewHeader& h = out.header;
  h.set_review_version(kReviewVersion);
  const size_t slash = replay.file.find_last_of('/');
  h.set_log_file(slash == std::string::npos ? replay.file : replay.file.substr(slash + 1));
  h.set_log_bytes(log_bytes.size());
  h.set_log_digest(log_digest(log_bytes));
  h.set_match_id(replay.header.match_id());
  h.set_format(wire::to_proto(replay.config.format));
  const int players = num_players(replay.config.format);
  for (int s = 0; s < players; ++s) {
    if (wanted(seats, s)) h.add_seats(static_cast<uint32_t>(s));
    h.add_seat_bots(s < replay.header.bots_size() ? replay.header.bots(s).display_name() : "");
  }
  record_settings(settings, h);

  int to_do = 0;
  for (const ReplayStep& step : replay.steps)
    if (step.record.has_play() && wanted(seats, static_cast<int>(step.record.play().seat())))
      ++to_do;
  std::vector<Knowledge> knowledge;
  for (int s = 0; s < players; ++s) knowledge.emplace_back(replay.config.format, s);
  int plays_in_hand = 0;
  std::array<bool, kMaxPlayers> played_in_hand{};
  engine::HandSolver solver;
  engine::Evaluation scratch;
  int done = 0;
  uint64_t ordinal = 0;  // every play's number in the log, so a seat's review needs no other's
  for (size_t i = 0; i < replay.steps.size(); ++i) {
    const v1::LogRecord& r = replay.steps[i].record;
    if (r.has_hand_start()) {
      OpenRule rule = OpenRule::kWinnerChooses;
      Tile open_with;
      wire::from_proto(r.hand_start().open_rule(), rule, nullptr);
      if (r.hand_start().has_open_with())
        wire::from_proto(r.hand_start().open_with(), open_with, nullptr);
      for (Knowledge& k : knowledge)
        k.start_hand(static_cast<int>(r.hand_start().hand_index()), rule, open_with);
      plays_in_hand = 0;
      played_in_hand = {};
      continue;
    }
    Event e;
    if (!public_event(r, e)) continue;
    if (r.has_play()) {
      const int seat = e.seat;
      const int in_hand = ++plays_in_hand;
      const uint64_t seed = derive_seed(settings.eval.seed, ordinal++);
      if (i > 0 && seat >= 0 && seat < players && wanted(seats, seat)) {
        const State& before = replay.steps[i - 1].state;
        if (before.seat_to_move() == seat) {
          v1::ReviewDecision d =
              review_decision(before.view(seat), knowledge[seat], e.play, !played_in_hand[seat],
                              seed, settings, solver, scratch);
          d.set_log_line(static_cast<uint32_t>(replay.steps[i].line));
          d.set_play_in_hand(static_cast<uint32_t>(in_hand));
          out.decisions.push_back(std::move(d));
        }
        if (progress) progress(++done, to_do);
      }
      if (seat >= 0 && seat < players) played_in_hand[seat] = true;
    }
    for (Knowledge& k : knowledge) k.observe(e);
  }
  return out;
}

bool review_is_current(const v1::ReviewHeader& existing, std::string_view log_bytes,
                       const std::vector<int>& seats, const ReviewSettings& settings) {
  std::vector<int> have(existing.seats().begin(), existing.seats().end());
  std::vector<int> want = seats;
  if (want.empty())
    for (int s = 0; s < existing.seat_bots_size(); ++s) want.push_back(s);
  std::sort(want.begin(), want.end());
  // Written over with these settings, a current header is unchanged.
  v1::ReviewHeader rewritten = existing;
  record_settings(settings, rewritten);
  return existing.review_version() == kReviewVersion && review_matches_log(existing, log_bytes) &&
         have == want && rewritten.SerializeAsString() == existing.SerializeAsString();
}

}  // namespace allfives::referee
