// A seat played by a person. It is an ordinary bot as far as the match runner knows: an SDK
// bot server (allfives/bot/server.h) inside the referee's own process, on a Unix socket the
// match connects to by address, whose decisions come from a person instead of code:
// * web: a page served on --serve HOST:PORT, reachable only with a random token in its URL
//   (403 without). The page receives exactly what the SDK gives this seat (its own tiles,
//   the line, the others' tile counts, the scores, the legal plays, the time left) and the
//   other seats' names (from the match log's header, never its seed) as server-sent events
//   (human_table.h), and sends back the chosen play with the number of the table it answers:
//     GET  /?token=T               the page (human_page.html)
//     GET  /events?token=T         the table, again after every change
//     POST /play?token=T           seq=S&play=I: play I of the table numbered S; 409 if that
//                                  table is not of the decision now waiting (a late click)
//     GET  /replay?token=T         the finished match's replay, as this seat saw it
//     POST /review?token=T         "review my decisions": the finished match's review of this
//                                  seat, computed in the background (review_jobs.h)
//     GET  /review?token=T         how far it is, as JSON, with this seat's reviewed decisions
//                                  (html_view.h's review_decision_json) once it is written
//     POST /rematch?token=T        "play again": another match once this one is over;
//                                  opponent=ID picks the next opponent among the ids the
//                                  table offers (400 for any other: never a path)
//     POST /hint?token=T           on=1 / on=0: on the person's turns, the strong search's
//                                  suggestion (the table's "hint"), from the seat's view only
//     POST /leave?token=T          done: the referee exits
// * terminal: human_tty.h.
// In-process rather than a started program because the seat needs the terminal or an HTTP
// port of its own, which a bot process (sandboxed, its output captured) does not have.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "match/match_result.h"

namespace allfives::referee::serve {

// An opponent "play again" offers: the page sends back `id` ("" is the command line's bots).
struct HumanOpponent {
  std::string id;
  std::string name;
};

struct HumanSeatOptions {
  std::string bot_listen;                // where the seat's bot server listens: unix:PATH
  bool web = true;                       // false: the terminal
  std::string serve = "127.0.0.1:8080";  // web: the page's HOST:PORT (port 0 picks one)
  std::string token;                     // web: the secret the page's URL carries
  int pace_ms = 600;  // web: the page shows one seat's play at least this long after the last
  // web: the opponents the page offers for the next match, the command line's first (id "").
  std::vector<HumanOpponent> opponents;
};

class HumanSeat {
 public:
  // Starts the bot server and, for the web, the page's HTTP server. Null and why on failure.
  static std::unique_ptr<HumanSeat> start(const HumanSeatOptions& options, std::string* error);
  ~HumanSeat();
  // web: the page's address with its token.
  std::string url() const;

  // The log of the match about to be played: the terminal draws the table from it, the
  // page takes the bots' names from its header and, once the match is over, its replay.
  void set_log(const std::string& path);

  // web: waits until the page is open, so the match's clock starts with a person at the
  // table. The terminal needs no wait.
  enum class Arrival { kOpened, kStopped, kTimedOut };
  Arrival wait_for_person(const std::atomic<bool>& stop, std::chrono::milliseconds limit);

  // How the match ended, from its result (more than the seat hears: the fault's kind): the
  // page and the terminal say it in words.
  void match_over(const MatchResult& result);

  // web: after a match, keeps the page up until the person asks for another match (true, with
  // the id of the opponent chosen in `opponent`: one of options.opponents'), leaves, closes
  // every page for 5 s, or `limit` passes (false). The terminal: false.
  bool wait_for_rematch(const std::atomic<bool>& stop, std::chrono::milliseconds limit,
                        std::string* opponent);

  struct Impl;

 private:
  explicit HumanSeat(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// 32 hex digits from the system's random source.
std::string random_token();

}  // namespace allfives::referee::serve
