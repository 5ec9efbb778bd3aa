// The HTML of `referee serve`'s own pages (the replay page is replay/html_view.h): one frame
// and style for all, the list of served folders, and a tournament's page (the SPRT, the
// standings, head to head, pairings, decision times and the matches, filtered by bot and by
// fault). Built from values only: arena_site.cpp reads the files. Pages of something still
// being played say so (body data-live="1") and refresh their content every 2 s until it ends;
// body data-refreshes counts the refreshes (for tests).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "allfives/v1/common.pb.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {

struct FolderRow {
  std::string name;  // as given on the command line, with its path inside
  std::string url;
  size_t logs = 0;
  std::optional<size_t> finished;  // entries of its index; nullopt if the index is unreadable
  bool tournament = false;         // it has an index or tournament.txtpb (else: loose logs)
  int playing = 0;                 // logs being written now
  // A tournament's: its name, bots (by rank), when its index last changed, its state (a run
  // holds the folder or logs are being written; every scheduled match or every SPRT is done;
  // else it was stopped before its end), its scheduled matches, and the SPRTs' verdicts or
  // the leader.
  std::string title;
  std::vector<std::string> bots;
  int64_t updated = 0;
  enum class State { kNone, kRunning, kInterrupted, kFinished };
  State state = State::kNone;
  uint64_t planned = 0;
  std::string verdict;
};
std::string folders_page(const std::vector<FolderRow>& rows);

// One match of a folder, from its index entry or, if the index does not hold it, its log.
struct MatchRow {
  enum class Status { kFinished, kPlaying, kUnfinished, kNotALog };
  std::string name;     // the log's name without .jsonl
  std::string url;      // its replay page
  std::string log_url;  // the log itself
  Status status = Status::kFinished;
  v1::Format format = v1::FORMAT_UNSPECIFIED;
  std::vector<std::string> seats;  // the bot of each seat
  v1::MatchEndReason reason = v1::MATCH_END_REASON_UNSPECIFIED;
  int winner_side = -1;
  std::vector<int> scores;
  int hands = 0;
  int fault_seat = -1;
  v1::FaultKind fault_kind = v1::FAULT_KIND_UNSPECIFIED;
  std::string fault_reason;
  std::string too_large;  // the log's size in words if it is too large for a page, else ""
};

// Which matches the page lists: ?bot=NAME (a seat's bot) and ?fault=any|none|KIND.
struct MatchFilter {
  std::string bot;
  std::string fault;
  bool shows(const MatchRow& row) const;
};

// The match list is paged: ?page=N (from 1) shows the N-th kMatchesPerPage of the matches the
// filter shows: first the logs the index does not hold (being played, unfinished, not a log)
// in natural order, then the finished matches in the index's order (the order they finished).
inline constexpr size_t kMatchesPerPage = 200;

struct TournamentPage {
  std::string title;
  std::string crumbs;         // links above the title
  std::string standings_url;  // the standings as JSON
  bool has_index = false;     // false: a folder of loose logs (no standings)
  const Standings* standings = nullptr;
  std::vector<MatchRow> matches;  // the matches of this page
  size_t listed = 0;              // every match of the folder (finished and not)
  size_t shown = 0;               // of those, the ones the filter shows
  size_t page = 1;                // which page of the shown matches `matches` is
  int playing = 0;                // logs being written now
  std::set<std::string> bots;     // the filter's choices: every seat's bot,
  std::set<v1::FaultKind> kinds;  // every fault kind
  MatchFilter filter;
  bool live = false;  // matches being played: the page refreshes itself
};
std::string tournament_page(const TournamentPage& p);

// What a match's result says in words: "greedy won 250–145", "a draw 200–200",
// "aborted"; and the name of each side ("a + c" for partners).
std::string result_words(const MatchRow& row);
std::string side_name(v1::Format format, const std::vector<std::string>& seats, int side);

// The frame of every page: title, links, body; `live` makes it refresh (see above).
std::string page(const std::string& title, const std::string& crumbs, const std::string& body,
                 bool live = false, const std::string& head_extra = "");

}  // namespace allfives::referee::serve
