// `referee serve` on a ladder folder (one with ladder.db): its pages under /ladder/R/, where R is
// the folder's position on the command line. Its rounds are tournament folders like any other,
// so their pages and replays are the site's own.
//
//   GET  ""                 the leaderboard (refreshed live)
//   GET  bot/NAME           a bot: rating plot, head to head, versions, reports, recent matches
//   GET  user/NAME          a user's bots
//   GET  signin, POST signin        sign in with a token: a session cookie
//   POST signout
//   GET  upload, POST upload        upload a version (multipart/form-data, streamed to disk)
//   GET  upload/ID, upload/ID.json  the upload's progress through the gate (its owner only)
//   GET  admin, POST admin/retire, POST admin/reset   organisers only
// Every POST carries the form's CSRF token; the session cookie is HttpOnly and SameSite=Strict.
// Sign-in attempts are limited per address, uploads per user and hour (the ladder file's
// submissions_per_hour); a refusal says when to try again.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "serve/http_server.h"
#include "serve/served_paths.h"

namespace allfives::referee::serve {

// Whether the folder at `real` is a ladder's.
bool is_ladder_folder(const std::string& real);

// The ladder's name and recorded matches, for the list of served folders; false if unreadable.
bool ladder_summary(const std::string& real, std::string& name, int64_t& matches);

class LadderSite {
 public:
  explicit LadderSite(std::vector<ServedRoot> roots);
  ~LadderSite();
  LadderSite(const LadderSite&) = delete;
  LadderSite& operator=(const LadderSite&) = delete;

  // The answer at /ladder/R/`rel` (R = `root`).
  HttpResponse handle(const HttpRequest& req, int root, std::string_view rel);
  // Where a POST's body goes (HttpServerOptions::plan_body): an upload by a signed-in user
  // within their limits goes to a file in the ladder's folder, capped at the ladder's upload
  // size; one by anybody else is refused before its body is read.
  BodyPlan plan_body(const HttpRequest& head);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace allfives::referee::serve
