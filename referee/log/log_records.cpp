#include "log/log_records.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include "allfives/wire/convert.h"

namespace allfives::referee {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

v1::LimitMechanism log_mechanism(LimitMechanism m) {
  switch (m) {
    case LimitMechanism::kNone:
      return v1::LIMIT_MECHANISM_NONE;
    case LimitMechanism::kRlimit:
      return v1::LIMIT_MECHANISM_RLIMIT;
    case LimitMechanism::kCgroupV1:
      return v1::LIMIT_MECHANISM_CGROUP_V1;
    case LimitMechanism::kCgroupV2:
      return v1::LIMIT_MECHANISM_CGROUP_V2;
  }
  return v1::LIMIT_MECHANISM_NONE;
}

}  // namespace

v1::LogHeader& add_log_header(MatchLog& log, const std::string& match_id, const Config& config,
                              uint64_t seed, std::chrono::milliseconds move_time,
                              std::chrono::milliseconds time_bank) {
  v1::LogHeader* h = log.add().mutable_header();
  h->set_log_version(wire::kLogVersion);
  h->set_protocol_version(wire::kProtocolVersion);
  h->set_rules_version(wire::kRulesVersion);
  h->set_match_id(match_id);
  h->set_format(wire::to_proto(config.format));
  h->set_num_players(static_cast<uint32_t>(num_players(config.format)));
  h->set_num_sides(static_cast<uint32_t>(num_sides(config.format)));
  h->set_target_score(static_cast<uint32_t>(config.target));
  h->set_max_hands(static_cast<uint32_t>(config.max_hands));
  h->set_seed(seed);
  h->set_move_time_ms(static_cast<uint32_t>(move_time.count()));
  h->set_time_bank_ms(static_cast<uint32_t>(time_bank.count()));
  h->set_started_at(utc_now());
  return *h;
}

v1::LogBot& add_log_bot(v1::LogHeader& header, Format format, int seat, const LogSeat& s) {
  v1::LogBot* b = header.add_bots();
  b->set_seat(static_cast<uint32_t>(seat));
  b->set_side(static_cast<uint32_t>(side_of(format, seat)));
  b->set_display_name(s.display_name);
  b->set_name(s.name);
  b->set_version(s.version);
  if (!s.command.empty()) b->set_command(s.command);
  b->set_address(s.address);
  b->set_move_time_ms(static_cast<uint32_t>(s.move_time.count()));
  b->set_time_bank_ms(static_cast<uint32_t>(s.time_bank.count()));
  b->set_protocol_version(s.protocol_version);
  return *b;
}

void log_hand_start(MatchLog& log, const Event& e, Format format, std::span<const int> scores) {
  v1::LogHandStart* h = log.add().mutable_hand_start();
  h->set_hand_index(static_cast<uint32_t>(e.hand_index));
  for (int seat = 0; seat < num_players(format); ++seat) {
    v1::SeatTiles* st = h->add_hands();
    st->set_seat(static_cast<uint32_t>(seat));
    wire::add_tiles(e.deal.hands[seat], st->mutable_tiles());
  }
  for (int i = 0; i < e.deal.boneyard_size; ++i) wire::fill(e.deal.boneyard[i], h->add_boneyard());
  h->set_opener_seat(static_cast<uint32_t>(e.seat));
  const auto rule = static_cast<OpenRule>(e.reason);
  h->set_open_rule(wire::to_proto(rule));
  if (rule != OpenRule::kWinnerChooses) wire::fill(e.open_with, h->mutable_open_with());
  for (int s : scores) h->add_scores(static_cast<uint32_t>(s));
}

namespace {

void set_output(v1::LogOutput* o, const LogPrinted& printed) {
  o->set_text(printed.text);
  o->set_dropped_bytes(printed.dropped_bytes);
  o->set_invalid_utf8_bytes(printed.invalid_utf8_bytes);
}

}  // namespace

void log_play(MatchLog& log, const Event& e, int side_score, const LogDecision& d) {
  v1::LogPlay* lp = log.add().mutable_play();
  lp->set_hand_index(static_cast<uint32_t>(e.hand_index));
  lp->set_seat(static_cast<uint32_t>(e.seat));
  wire::fill(e.play, lp->mutable_play());
  lp->set_count(static_cast<uint32_t>(e.count));
  lp->set_points(static_cast<uint32_t>(e.points));
  lp->set_side(static_cast<uint32_t>(e.side));
  lp->set_side_score(static_cast<uint32_t>(side_score));
  lp->set_decision_time_us(d.decision_us);
  lp->set_legal_play_count(static_cast<uint32_t>(d.offered.size()));
  wire::fill(e.ends[0], lp->mutable_left_end());
  wire::fill(e.ends[1], lp->mutable_right_end());
  for (const Play& p : d.offered) {
    v1::LogOption* o = lp->add_options();
    wire::fill(p, o->mutable_play());
    const int count = count_after(d.before, p);
    o->set_count(static_cast<uint32_t>(count));
    o->set_points(static_cast<uint32_t>(points_for_count(count)));
  }
  lp->set_time_bank_left_ms(static_cast<uint32_t>(d.bank_left.count()));
  lp->set_comment(d.comment);
  lp->set_comment_dropped_bytes(d.comment_dropped);
  if (!d.output.empty()) set_output(lp->mutable_output(), d.output);
}

std::string capped_comment(std::string_view comment, size_t max_bytes, uint32_t* dropped) {
  size_t keep = std::min(comment.size(), max_bytes);
  // Back off over continuation bytes (10xxxxxx) so no character is cut in two.
  if (keep < comment.size())
    while (keep > 0 && (static_cast<unsigned char>(comment[keep]) & 0xC0) == 0x80) --keep;
  *dropped = static_cast<uint32_t>(comment.size() - keep);
  return std::string(comment.substr(0, keep));
}

void log_draw(MatchLog& log, const Event& e) {
  v1::LogDraw* ld = log.add().mutable_draw();
  ld->set_hand_index(static_cast<uint32_t>(e.hand_index));
  ld->set_seat(static_cast<uint32_t>(e.seat));
  for (Tile t : e.drawn_in_order()) wire::fill(t, ld->add_tiles());
}

void log_pass(MatchLog& log, const Event& e) {
  v1::LogPass* lp = log.add().mutable_pass();
  lp->set_hand_index(static_cast<uint32_t>(e.hand_index));
  lp->set_seat(static_cast<uint32_t>(e.seat));
}

void log_hand_end(MatchLog& log, const Event& e, Format format, std::span<const int> scores) {
  const auto kind = static_cast<HandEndKind>(e.reason);
  v1::LogHandEnd* he = log.add().mutable_hand_end();
  he->set_hand_index(static_cast<uint32_t>(e.hand_index));
  he->set_kind(wire::to_proto(kind));
  he->set_domino_seat(kind == HandEndKind::kDomino ? e.seat : -1);
  std::vector<uint32_t> side_pips(static_cast<size_t>(num_sides(format)), 0);
  for (int seat = 0; seat < num_players(format); ++seat) {
    v1::SeatTiles* st = he->add_hands();
    st->set_seat(static_cast<uint32_t>(seat));
    wire::add_tiles(e.hands[seat], st->mutable_tiles());
    he->add_seat_pips(static_cast<uint32_t>(e.values[seat]));
    side_pips[static_cast<size_t>(side_of(format, seat))] += static_cast<uint32_t>(e.values[seat]);
  }
  for (uint32_t p : side_pips) he->add_side_pips(p);
  he->set_winner_side(e.side);
  he->set_points(static_cast<uint32_t>(e.points));
  for (int s : scores) he->add_scores(static_cast<uint32_t>(s));
}

void log_fault(MatchLog& log, Format format, int seat, v1::FaultKind kind,
               const std::string& reason, int hand_index, const LogPrinted& output) {
  v1::LogFault* f = log.add().mutable_fault();
  f->set_seat(static_cast<uint32_t>(seat));
  f->set_side(static_cast<uint32_t>(side_of(format, seat)));
  f->set_kind(kind);
  f->set_reason(reason);
  f->set_hand_index(static_cast<uint32_t>(hand_index));
  if (!output.empty()) set_output(f->mutable_output(), output);
}

void log_match_end(MatchLog& log, const MatchEnding& end, std::span<const uint64_t> off_turn_cpu_us,
                   const std::vector<bool>& frozen_off_turn) {
  v1::LogMatchEnd* me = log.add().mutable_match_end();
  me->set_reason(end.reason);
  me->set_winner_side(end.winner_side);
  for (int v : end.scores) me->add_scores(static_cast<uint32_t>(v));
  for (int v : end.placements) me->add_placements(static_cast<uint32_t>(v));
  me->set_hands_played(static_cast<uint32_t>(end.hands_played));
  me->set_duration_ms(static_cast<uint64_t>(end.duration.count()));
  me->set_fault_seat(end.fault ? end.fault->seat : -1);
  if (end.fault) me->set_fault_kind(end.fault->kind);
  for (uint64_t us : off_turn_cpu_us) me->add_off_turn_cpu_us(us);
  for (bool frozen : frozen_off_turn) me->add_frozen_off_turn(frozen);
}

void log_bot_output(MatchLog& log, int seat, std::string text, uint64_t dropped_bytes,
                    uint64_t invalid_utf8_bytes) {
  v1::LogBotOutput* o = log.add().mutable_bot_output();
  o->set_seat(static_cast<uint32_t>(seat));
  o->set_stderr(std::move(text));
  o->set_dropped_bytes(dropped_bytes);
  o->set_invalid_utf8_bytes(invalid_utf8_bytes);
}

v1::LogConfinement log_confinement(const LogConfinementFacts& f) {
  v1::LogConfinement c;
  c.set_sandboxed(f.sandboxed);
  if (f.sandboxed) {
    c.set_sandbox(f.sandbox_version.empty() ? "bubblewrap" : f.sandbox_version);
    for (const std::string& dir : f.read_only_dirs) c.add_read_only_dirs(dir);
    c.set_user_namespaces_disabled(f.user_namespaces_disabled);
    c.set_connect_refused(f.connect_refused);
    c.set_writable_dir_tmpfs_mib(f.socket_dir_tmpfs_mib);
  }
  c.set_writable_dir(f.socket_path.substr(0, f.socket_path.rfind('/')));
  c.set_uid(f.uid);
  c.set_memory_mib(f.limits.memory_mib);
  c.set_processes(f.limits.processes);
  c.set_open_files(f.limits.open_files);
  c.set_file_size_mib(f.limits.file_size_mib);
  c.set_core_dumps(!f.limits.no_core_dumps);
  c.set_memory_limit_by(log_mechanism(f.memory_limit_by));
  c.set_processes_limit_by(log_mechanism(f.processes_limit_by));
  c.set_cpu_percent(f.limits.cpu_percent);
  c.set_cpu_limit_by(log_mechanism(f.cpu_limit_by));
  c.set_think_on_opponent_time(f.think_on_opponent_time);
  c.set_cpu_watched_by(log_mechanism(f.cpu_watched_by));
  for (const std::string& folder : f.cgroups) c.add_cgroups(folder);
  return c;
}

}  // namespace allfives::referee
