// Conversions between the rules core's values and the protocol's messages, shared by the
// referee and the bot SDK so both sides read and write the wire the same way.
//
// Messages from the other side are untrusted: every from_proto() validates and returns
// false with a reason instead of trusting a field.
#pragma once

#include <span>
#include <string>

#include "allfives/core/state.h"
#include "allfives/v1/bot.pb.h"
#include "allfives/v1/log.pb.h"

namespace allfives::wire {

// The protocol versions, as common.proto defines them (the one place they are written): the
// newest, which the referee and the SDKs speak, and the oldest the referee still serves.
inline constexpr uint32_t kProtocolVersion = v1::PROTOCOL_VERSION_CURRENT;
inline constexpr uint32_t kOldestProtocolVersion = v1::PROTOCOL_VERSION_OLDEST;
inline constexpr const char* kRulesVersion = allfives::kRulesVersion;  // the core's (types.h)
// The match log's schema (log.proto's LogHeader.log_version); readers take every version from
// kOldestLogVersion on.
inline constexpr uint32_t kLogVersion = 3;
inline constexpr uint32_t kOldestLogVersion = 1;
// The longest PlayAnswer.comment the referee keeps (bot.proto); the rest is dropped and counted.
inline constexpr size_t kMaxCommentBytes = 256;

v1::Tile to_proto(Tile t);
v1::End to_proto(End e);
v1::Play to_proto(Play p);
v1::Format to_proto(Format f);
v1::OpenRule to_proto(OpenRule r);
v1::HandEndKind to_proto(HandEndKind k);
v1::MatchEndReason to_proto(MatchEndReason r);
v1::LineEnd to_proto(LineEnd e);
v1::LineTile to_proto(const LinePlay& p);
// The same conversions written into a message the caller holds (a field of a message in an
// arena, say), which building a value and copying it in would allocate twice for.
void fill(Tile t, v1::Tile* out);
void fill(Play p, v1::Play* out);
void fill(LineEnd e, v1::LineEnd* out);
void fill(const LinePlay& p, v1::LineTile* out);
// A core play event (kind kPlay) as the public PlayEvent every seat is sent.
void fill_play_event(const Event& e, v1::PlayEvent* out);
// What seat `viewer` is told of a core event of kind kHandStart, kPlay, kDraw, kPass or
// kHandEnd (a match's end is the MatchEnd message instead), with docs/RULES.md §15 "What a bot may
// see" applied: at a hand's start only its own tiles, of another seat's draw only the count, at a
// hand's end every hand. `scores` are every side's scores once the event is done. The drawer
// gets its drawn tiles in drawing order (Event::drawn).
v1::Event seat_event(const Event& e, int viewer, Format format, std::span<const int> scores);
// The same written into `out` (a message of the caller's, e.g. in an arena): no copy.
void fill_seat_event(const Event& e, int viewer, Format format, std::span<const int> scores,
                     v1::Event* out);
void add_tiles(TileSet s, google::protobuf::RepeatedPtrField<v1::Tile>* out);

bool from_proto(const v1::Tile& m, Tile& out, std::string* error);
bool from_proto(const google::protobuf::RepeatedPtrField<v1::Tile>& m, TileSet& out,
                std::string* error);
bool from_proto(v1::Format m, Format& out, std::string* error);
bool from_proto(v1::OpenRule m, OpenRule& out, std::string* error);
// A play as a bot answered it. `opening` allows END_UNSPECIFIED (the end is irrelevant then).
bool from_proto(const v1::Play& m, bool opening, Play& out, std::string* error);
bool from_proto(const v1::LineTile& m, LinePlay& out, std::string* error);

// The referee side: seat `view.seat()`'s turn request (its view, legal plays, no events).
void fill_turn_request(const View& view, v1::TurnRequest* out);

// The bot side: rebuilds the core view from a turn request of a match described by `start`.
bool view_from_turn_request(const v1::MatchStart& start, const v1::TurnRequest& m, View& out,
                            std::string* error);

}  // namespace allfives::wire
