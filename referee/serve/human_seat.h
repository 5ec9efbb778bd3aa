// A seat played by a person. It is an ordinary bot as far as the match runner knows: an SDK
// bot server (allfives/bot/server.h) inside the referee's own process, on a Unix socket the
// match connects to by address, whose decisions come from a person instead of code:
// * web: a page served on --serve HOST:PORT, reachable only with a random token in its URL
//   (403 without). The page receives exactly what the SDK gives this seat (its own tiles,
//   the line, the others' tile counts, the scores, the legal plays, the time left) as
//   server-sent events, and sends back the index of the chosen play.
// * terminal: the table as `referee replay --seat` draws it (rendered from the match's own log
//   as seen by this seat), the legal plays numbered, and a number typed.
// In-process rather than a started program because the seat needs the terminal or an HTTP
// port of its own, which a bot process (sandboxed, its output captured) does not have.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace allfives::referee::serve {

struct HumanSeatOptions {
  std::string bot_listen;                // where the seat's bot server listens: unix:PATH
  bool web = true;                       // false: the terminal
  std::string serve = "127.0.0.1:8080";  // web: the page's HOST:PORT (port 0 picks one)
  std::string token;                     // web: the secret the page's URL carries
  std::string log_path;                  // terminal: the match log, to draw the table from
};

class HumanSeat {
 public:
  // Starts the bot server and, for the web, the page's HTTP server. Null and why on failure.
  static std::unique_ptr<HumanSeat> start(const HumanSeatOptions& options, std::string* error);
  ~HumanSeat();
  // web: the page's address with its token.
  std::string url() const;
  // web: waits until the page is open (or `stop`); so the match's clock starts with a person
  // at the table. Returns false if stopped. The terminal needs no wait.
  bool wait_for_person(const std::atomic<bool>& stop);
  // Keeps the page up for `grace` after the match so it can show the result, then stops.
  void finish(std::chrono::milliseconds grace);

  struct Impl;

 private:
  explicit HumanSeat(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// 32 hex digits from the system's random source.
std::string random_token();

}  // namespace allfives::referee::serve
