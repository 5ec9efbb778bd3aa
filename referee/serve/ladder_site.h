// `referee serve` on a ladder folder (one with ladder.db): /ladder/R/ is its leaderboard,
// /ladder/R/bot/NAME a bot's page, /ladder/R/user/NAME a user's (ladder_pages.h); its rounds
// are tournament folders like any other, so their pages and replays are the site's own.
#pragma once

#include <string>
#include <string_view>

#include "serve/http_server.h"
#include "serve/served_paths.h"

namespace allfives::referee::serve {

// Whether the folder at `real` is a ladder's.
bool is_ladder_folder(const std::string& real);

// The ladder's name and recorded matches, for the list of served folders; false if unreadable.
bool ladder_summary(const std::string& real, std::string& name, int64_t& matches);

// The page at /ladder/R/`rel` of the ladder served as root number `root`.
HttpResponse ladder_response(const ServedRoot& r, int root, std::string_view rel);

}  // namespace allfives::referee::serve
