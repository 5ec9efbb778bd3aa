// The HTML of a served ladder's forms (docs/LADDER.md, "In a browser"): sign in with a token,
// upload a version, follow its upload through the gate, and the organisers' page (retire a
// version, reset a token). Every form carries its CSRF token; every text is escaped. Built
// from values only: ladder_site.cpp checks and acts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ladder/ladder_store.h"

namespace allfives::referee::serve {

// Who reads the page: nobody signed in, or a user with the session's CSRF token.
struct LadderViewer {
  std::string name;
  bool organiser = false;
  std::string csrf;
};

// The links at the top of every ladder page: the ladder, and sign in, or who is signed in with
// their pages and a sign-out button.
std::string ladder_crumbs(const std::string& base, const std::string& ladder,
                          const std::optional<LadderViewer>& viewer);

// `error`: why the last attempt failed, "" for none; `csrf` the form's token (also in its
// cookie).
std::string sign_in_page(const std::string& base, const std::string& ladder,
                         const std::string& csrf, const std::string& error);

struct UploadForm {
  std::string base, ladder;
  LadderViewer viewer;
  std::vector<std::string> bots;  // the viewer's, to add a version to
  uint64_t max_bytes = 0;
  int per_hour = 0, left_this_hour = 0;
  std::string error;  // why the last upload was refused before it was stored, or ""
};
std::string upload_page(const UploadForm& f);

// An upload's progress, followed live by polling `json_url` (ladder_uploads.h's status).
std::string upload_job_page(const std::string& base, const std::string& ladder,
                            const LadderViewer& viewer, const std::string& bot,
                            const std::string& json_url);

struct AdminPage {
  std::string base, ladder;
  LadderViewer viewer;
  std::vector<Version> versions;  // every version, by id
  std::vector<User> users;
  std::string notice;     // the outcome of the last action, or ""
  std::string new_token;  // a reset token, shown only on the page that answers the reset
};
std::string admin_page(const AdminPage& p);

}  // namespace allfives::referee::serve
