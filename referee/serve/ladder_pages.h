// The HTML of a ladder served by `referee serve` (docs/LADDER.md): its leaderboard, a page per
// bot (its versions with their gate reports, its rating over time as an SVG plot drawn here,
// its recent matches with their replays) and a page per user. Built from values only:
// ladder_site.cpp reads the database. Every text from a user or a bot is escaped.
#pragma once

#include <string>
#include <vector>

#include "ladder/ladder_store.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {

struct LadderBoard {
  std::string name;    // the ladder's
  std::string base;    // "/ladder/R/"
  std::string crumbs;  // ladder_crumbs()
  std::vector<RatingRow> rows;
  std::vector<Version> waiting;  // versions still being checked
  int64_t matches = 0;
  int64_t now = 0;  // seconds since the epoch, for "last played"
};
std::string ladder_board_page(const LadderBoard& b);

// A version's rating over its matches (its history points), for the plot.
struct RatingSeries {
  std::string version;
  std::vector<HistoryPoint> points;
};
// An SVG plot of each series (Elo against the version's matches, the 95% interval as a band);
// empty when no series has a point.
std::string rating_plot_svg(const std::vector<RatingSeries>& series);

struct LadderMatchLine {
  std::string text;  // "fox@2 250 – 145 owl@1"
  std::string url;   // its replay, "" if its log is not found
};

struct LadderVersionView {
  Version version;
  const RatingRow* rating = nullptr;  // null before its first rated match
  std::vector<LadderMatchLine> recent;
};

struct LadderBotPage {
  std::string ladder, base, crumbs, bot, user;
  std::vector<LadderVersionView> versions;  // newest first
  std::vector<RatingSeries> series;
  // Pairwise games (standings.h) of its versions against each other bot, by the bot's name.
  std::vector<std::pair<std::string, HeadToHead>> head_to_head;
};
std::string ladder_bot_page(const LadderBotPage& p);

// `own`: the reader is this user (the page offers an upload).
std::string ladder_user_page(const std::string& ladder, const std::string& base,
                             const std::string& crumbs, const std::string& user,
                             const std::vector<std::string>& bots, bool own);

}  // namespace allfives::referee::serve
