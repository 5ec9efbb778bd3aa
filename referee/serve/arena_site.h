// The pages of `referee serve DIR...`: the site's answer to each request, built from the
// files under the served folders as they are at that moment (nothing is cached but the live
// matches being followed).
//
//   /                          every tournament (or folder of match logs) found
//   /t/R/PATH/                 one tournament: standings, head to head, its matches
//   /m/R/PATH.jsonl[?seat=S]   the HTML replay of one log (one seat's view with ?seat=);
//                              a log still being written follows the match live, with no
//                              hidden tile unless SiteOptions::spectators_full
//   /live/R/PATH.jsonl?from=K[&seat=S]  server-sent events: the steps from K on, as the log grows
//   /log/R/PATH.jsonl          the log itself (application/x-ndjson), streamed from disk; a
//                              match's once it is over unless SiteOptions::spectators_full
//   /standings/R/PATH/         the standings as JSON (standings.json's format)
//   /ladder/R/...              a ladder's leaderboard, bots' and users' pages, sign-in,
//                              uploads and its organisers' page (ladder_site.h), when root R
//                              is a ladder folder
//   /review/R/PATH.jsonl       a finished match's game review: POST starts computing it in the
//                              background (review_jobs.h), GET says how far it is (JSON); the
//                              replay page shows a review once it lies beside the log
// A tournament's page takes ?bot=NAME&fault=any|none|KIND to list only some matches. Pages of
// logs over kMaxPageLogBytes (log_folders.h) are refused (413); /log/ serves any size.
// R is the folder's position on the command line; PATH is relative to it (see served_paths.h).
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>
#include <vector>

#include "allfives/core/types.h"
#include "serve/http_server.h"
#include "serve/served_paths.h"

namespace allfives::referee::serve {

class LadderSite;
class ReviewJobs;

struct SiteOptions {
  std::chrono::milliseconds poll_interval{100};  // how often followed logs are checked
  // Whether a match still being played is shown with its hidden tiles and seed (every seat's
  // view, /log/). Off: only what every seat sees (the line, hand sizes, scores) until its end,
  // since a bot at a network address could read its opponents' hands from these pages.
  bool spectators_full = false;
};

// The viewer of a match in progress without --spectators full: no seat (frames.h shows a
// viewer past the last seat only what every seat sees).
inline constexpr int kSpectator = kMaxPlayers;

class ArenaSite {
 public:
  // `ioc` runs the live followers' timer; handle() must be called on its thread.
  ArenaSite(boost::asio::io_context& ioc, std::vector<ServedRoot> roots, SiteOptions options);
  ~ArenaSite();
  HttpResponse handle(const HttpRequest& request);
  // Where a POST's body goes (HttpServerOptions::plan_body): a ladder's uploads to disk.
  BodyPlan plan_body(const HttpRequest& head);

  struct Live;     // the followed logs (arena_site.cpp)
  struct Indexes;  // each folder's index as last read, kept until the file changes

 private:
  // The routes above, one handler each: `root` is R, `rel` the PATH after it.
  HttpResponse folders();
  HttpResponse tournament(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse standings(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse replay(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse live(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse raw_log(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse review(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse ladder(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse tune(const HttpRequest& req, int root, std::string_view rel);
  HttpResponse replay_page(const std::string& real, const std::string& rel_url, int viewer,
                           const std::string& seat);

  // The viewer a page of the log at `real` may show: `asked` once the match is over (or the
  // file is no match log) or with spectators_full_, else kSpectator.
  int allowed_viewer(const std::string& real, int asked) const;

  std::vector<ServedRoot> roots_;
  bool spectators_full_ = false;
  std::shared_ptr<Live> live_;
  std::shared_ptr<Indexes> indexes_;
  std::unique_ptr<ReviewJobs> reviews_;
  std::unique_ptr<LadderSite> ladders_;
};

}  // namespace allfives::referee::serve
