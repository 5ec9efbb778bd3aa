// The live matches of a site (arena_site.h): one follower per (log, viewer), shared by every
// page watching it, checked on a timer while someone watches; each growth is turned into new
// steps once and the same bytes go to every watcher.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "serve/arena_site.h"
#include "serve/http_server.h"

namespace allfives::referee::serve {

struct ArenaSite::Live : std::enable_shared_from_this<ArenaSite::Live> {
  struct Watcher {
    std::shared_ptr<EventSink> sink;
  };
  struct Follower {
    std::string path;
    int viewer = -1;
    off_t size = -1;
    std::vector<std::string> steps;  // each step's JSON
    std::string hands;
    bool finished = false;
    bool too_large = false;
    std::vector<Watcher> watchers;
    // Re-reading a log costs time in proportion to its length, so a long one is checked less
    // often: after a re-read that took d, not again before 10 d have passed (at most a tenth
    // of a core per followed log, however long the match).
    std::chrono::steady_clock::time_point next_check{};
  };
  Live(boost::asio::io_context& ioc, std::chrono::milliseconds interval)
      : timer(ioc), interval(interval) {}
  boost::asio::steady_timer timer;
  std::chrono::milliseconds interval;
  std::map<std::pair<std::string, int>, Follower> followers;
  bool ticking = false;

  // Re-reads the log if it changed; returns the index of the first new step (or steps.size()).
  size_t refresh(Follower& f);
  // The event a watcher is sent: the steps from `from` on, the hands, whether it is over.
  static std::string message(const Follower& f, size_t from);
  // Returns false if `from` is beyond the steps there are.
  bool subscribe(const std::string& path, int viewer, size_t from, std::shared_ptr<EventSink> sink);
  // Checks the followed logs after `interval`, again and again while any is followed.
  void tick();
  // Each followed log re-read if it is due and changed; its new steps sent to its watchers.
  void poll();
};

}  // namespace allfives::referee::serve
