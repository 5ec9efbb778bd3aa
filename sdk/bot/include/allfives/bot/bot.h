// The C++ bot SDK: write a class with one method, call allfives::bot::run() from main.
//
//   #include <allfives/bot/bot.h>
//   class First final : public allfives::bot::Bot {
//     allfives::Play choose_play(const allfives::View& view, const allfives::bot::Clock&) override
//     {
//       return view.legal_plays()[0];
//     }
//   };
//   int main(int argc, char** argv) {
//     return allfives::bot::run(argc, argv, {"first", "1.0"},
//                               [](const allfives::bot::MatchInfo&) { return
//                               std::make_unique<First>(); });
//   }
//
// run() parses the standard flags, serves the protocol of proto/allfives/v1/bot.proto over
// gRPC, and creates one Bot object per match, so a bot never has to think about threads:
// every call on one object comes from one thread, in game order. The rules core
// (allfives/core/state.h) is part of the SDK, so a bot can simulate with the referee's own
// rules.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allfives/core/events.h"
#include "allfives/core/state.h"

namespace CLI {
class App;
}

namespace allfives::bot {

// What the bot is told when a match starts.
struct MatchInfo {
  std::string match_id;
  Config config;  // format, target, safety valve
  int seat = 0;
  int side = 0;
  int partner = -1;  // -1 without partnerships
  int num_players = 2;
  int num_sides = 2;
  std::chrono::milliseconds move_time{0};  // per decision, before the bank is used
  std::chrono::milliseconds time_bank{0};  // for the whole match
  std::vector<std::string> seat_names;
  // A seed for this bot's own randomness in this match: a function of the bot's --seed flag,
  // the match id and the seat only, so results do not depend on how matches are scheduled.
  uint64_t seed = 0;
  // The numeric parameters the tournament or tune file gives this bot (MatchStart.params,
  // TournamentBot.params): empty when none are given.
  std::map<std::string, double> params;

  // Parameter `name` as sent, or `fallback` when the referee sent none of that name:
  // info.param("epsilon", 0.05).
  double param(const std::string& name, double fallback) const {
    const auto it = params.find(name);
    return it == params.end() ? fallback : it->second;
  }
};

// The time a decision may take. The referee measures from sending the request to receiving
// the answer, so leave a margin for the transport (a few milliseconds).
struct Clock {
  std::chrono::steady_clock::time_point received;  // when the SDK got the request
  std::chrono::milliseconds move_time{0};
  std::chrono::milliseconds bank_left{0};
  // The instant after which the answer is late (move time plus the bank left).
  std::chrono::steady_clock::time_point hard_deadline() const {
    return received + move_time + bank_left;
  }
};

// A new hand: this seat's tiles and who opens.
struct HandStartInfo {
  int hand_index = 0;
  TileSet tiles;
  int opener = 0;
  OpenRule open_rule = OpenRule::kHighestDouble;
  Tile open_with;  // meaningful unless open_rule is kWinnerChooses
};

// What `seat` is told of a rules-core HandStart event: for code that plays matches in-process
// with the core instead of through the referee (a search's simulations, tests).
inline HandStartInfo hand_start_info(const Event& hand_start, int seat) {
  HandStartInfo h;
  h.hand_index = hand_start.hand_index;
  h.tiles = hand_start.hands[seat];
  h.opener = hand_start.seat;
  h.open_rule = static_cast<OpenRule>(hand_start.reason);
  h.open_with = hand_start.open_with;
  return h;
}

// A hand's end, with every hand revealed.
struct HandEndInfo {
  int hand_index = 0;
  HandEndKind kind = HandEndKind::kDomino;
  int domino_seat = -1;  // who went out, -1 for a block
  int winner_side = -1;  // who scored for the hand end, -1 if nobody
  int points = 0;
  std::array<TileSet, kMaxPlayers> hands{};
  std::vector<int> scores;  // every side's score after the hand
};

struct MatchEndInfo {
  std::string reason;    // "target", "hand_limit", "fault", "aborted"
  int winner_side = -1;  // -1: draw or no result
  std::vector<int> scores;
  std::vector<int> placements;  // per side, 1 = first
  int fault_seat = -1;
  std::string fault_reason;
};

// A public event: kind is kPlay, kDraw or kPass; draws carry tiles only for this bot's seat.
using PublicEvent = allfives::Event;

class Bot {
 public:
  virtual ~Bot() = default;

  // The one required method: pick one of view.legal_plays() (never empty when called).
  // Returning a play that is not legal forfeits the match.
  virtual Play choose_play(const View& view, const Clock& clock) = 0;

  // Optional hooks, called in game order.
  virtual void on_match_start(const MatchInfo&) {}
  virtual void on_hand_start(const HandStartInfo&) {}
  virtual void on_event(const PublicEvent&) {}
  virtual void on_hand_end(const HandEndInfo&) {}
  virtual void on_match_end(const MatchEndInfo&) {}

  // Inside choose_play: a short note sent with this answer (PlayAnswer.comment: an evaluation,
  // a principal line), kept in the match log beside the play and shown by `referee replay`.
  // UTF-8 text; the referee keeps at most 256 bytes and counts the rest as dropped.
  void set_comment(std::string text) { comment_ = std::move(text); }
  // The note set during the last choose_play, cleared (the SDK sends it with the answer).
  std::string take_comment() { return std::exchange(comment_, std::string()); }

 private:
  std::string comment_;
};

struct BotIdentity {
  std::string name;     // sent in Hello; shown in logs and standings
  std::string version;  // free text
};

using BotFactory = std::function<std::unique_ptr<Bot>(const MatchInfo&)>;

// Bot-specific flags: a callback that adds options to the SDK's command line before parsing.
using ExtraFlags = std::function<void(CLI::App&)>;

// Parses the standard flags and serves until SIGTERM/SIGINT, then drains and returns 0.
// Standard flags:
//   --listen ADDRESS   where to serve: unix:/path/to.sock or host:port (required)
//   --seed N           base of MatchInfo::seed (default 0)
// Returns 2 for bad flags (an unknown flag is named, with the flags the bot has) and 1 if the
// server cannot start (the reason goes to stderr). Call it before creating any gRPC object of
// your own: it sets GRPC_POLL_STRATEGY=poll (unless set already), which gRPC reads once at its
// start, so the bot is not woken each time the referee reads an answer.
int run(int argc, char** argv, const BotIdentity& identity, BotFactory factory,
        ExtraFlags extra_flags = nullptr);

}  // namespace allfives::bot
