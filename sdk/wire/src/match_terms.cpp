#include "allfives/wire/match_terms.h"

#include "allfives/wire/convert.h"

namespace allfives::wire {

v1::MatchStart match_start(const std::string& match_id, const Config& config, int seat,
                           std::chrono::milliseconds move_time, std::chrono::milliseconds time_bank,
                           std::span<const std::string> seat_names) {
  const Format format = config.format;
  v1::MatchStart m;
  m.set_protocol_version(kOldestProtocolVersion);
  m.set_highest_protocol_version(kProtocolVersion);
  m.set_rules_version(kRulesVersion);
  m.set_match_id(match_id);
  m.set_format(to_proto(format));
  m.set_num_players(static_cast<uint32_t>(num_players(format)));
  m.set_num_sides(static_cast<uint32_t>(num_sides(format)));
  m.set_seat(static_cast<uint32_t>(seat));
  m.set_side(static_cast<uint32_t>(side_of(format, seat)));
  m.set_partner_seat(partner_of(format, seat));
  m.set_target_score(static_cast<uint32_t>(config.target));
  m.set_max_hands(static_cast<uint32_t>(config.max_hands));
  m.set_move_time_ms(static_cast<uint32_t>(move_time.count()));
  m.set_time_bank_ms(static_cast<uint32_t>(time_bank.count()));
  for (const std::string& name : seat_names) m.add_seat_names(name);
  return m;
}

}  // namespace allfives::wire
