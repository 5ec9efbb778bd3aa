#include "tournament/index_entry.h"

#include "allfives/wire/convert.h"

namespace allfives::referee {

v1::IndexEntry index_entry(const TournamentDef& def, const v1::ScheduledMatch& m,
                           const MatchResult& r, const std::string& log_file) {
  v1::IndexEntry e;
  *e.mutable_match() = m;
  e.set_reason(r.reason);
  e.set_winner_side(r.winner_side);
  for (int s : r.scores) e.add_scores(static_cast<uint32_t>(s));
  for (int p : r.placements) e.add_placements(static_cast<uint32_t>(p));
  e.set_fault_seat(r.fault ? r.fault->seat : -1);
  if (r.fault) {
    e.set_fault_kind(r.fault->kind);
    e.set_fault_reason(r.fault->reason);
  }
  e.set_log_file(log_file);
  e.set_duration_ms(static_cast<uint64_t>(r.duration.count()));
  e.set_hands_played(static_cast<uint32_t>(r.hands_played));
  e.set_tournament_hash(def.hash);
  e.set_format(wire::to_proto(def.config.format));
  e.set_tournament_name(def.proto.name());
  for (const DecisionTiming& t : r.timing) *e.add_timing() = seat_timing(t);
  return e;
}

v1::SeatTiming seat_timing(const DecisionTiming& t) {
  v1::SeatTiming st;
  st.set_decisions(t.decisions);
  st.set_total_us(t.total_us);
  st.set_max_us(t.max_us);
  st.set_near_deadline(t.near_deadline);
  st.set_bank_used_ms(t.max_bank_used_ms);
  for (const auto& [bucket, count] : t.buckets) {
    st.add_bucket(bucket);
    st.add_bucket_count(count);
  }
  return st;
}

DecisionTiming decision_timing(const v1::SeatTiming& st) {
  DecisionTiming t;
  t.decisions = st.decisions();
  t.total_us = st.total_us();
  t.max_us = st.max_us();
  t.near_deadline = st.near_deadline();
  t.max_bank_used_ms = st.bank_used_ms();
  for (int i = 0; i < st.bucket_size() && i < st.bucket_count_size(); ++i)
    t.buckets[st.bucket(i)] += st.bucket_count(i);
  return t;
}

}  // namespace allfives::referee
