#include "serve/arena_site.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "log/log_reader.h"
#include "log/match_log.h"
#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "serve/arena_indexes.h"
#include "serve/arena_live.h"
#include "serve/ladder_site.h"
#include "serve/log_folders.h"
#include "serve/review_jobs.h"
#include "serve/site_pages.h"
#include "serve/tune_page.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"
#include "tournament/schedule.h"
#include "tournament/sprt.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {

ArenaSite::ArenaSite(boost::asio::io_context& ioc, std::vector<ServedRoot> roots,
                     SiteOptions options)
    : roots_(std::move(roots)),
      spectators_full_(options.spectators_full),
      live_(std::make_shared<Live>(ioc, options.poll_interval)),
      indexes_(std::make_shared<Indexes>()),
      reviews_(std::make_unique<ReviewJobs>(2)),
      ladders_(std::make_unique<LadderSite>(roots_)) {}

ArenaSite::~ArenaSite() {
  live_->timer.cancel();
}

namespace {

// "/t/0/a/b/" -> root 0, rel "a/b/". False if the prefix or the number is wrong.
bool split_root(std::string_view path, std::string_view prefix, size_t roots, int& root,
                std::string_view& rel) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  path.remove_prefix(prefix.size());
  const size_t slash = path.find('/');
  const std::string_view num = path.substr(0, slash);
  if (num.empty() || num.size() > 4) return false;
  root = 0;
  for (char c : num) {
    if (c < '0' || c > '9') return false;
    root = root * 10 + (c - '0');
  }
  if (static_cast<size_t>(root) >= roots) return false;
  rel = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  return true;
}

bool parse_int(const std::string& s, int max, int& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return out <= max;
}

std::string folder_url(const Folder& f) {
  return "/t/" + std::to_string(f.root) + "/" + url_encode_path(f.rel) + (f.rel.empty() ? "" : "/");
}

std::string folder_name(const std::vector<ServedRoot>& roots, const Folder& f) {
  const std::string& given = roots[static_cast<size_t>(f.root)].given;
  return f.rel.empty() ? given : given + "/" + f.rel;
}

// A log's row from its index entry.
MatchRow row_of(const v1::IndexEntry& e) {
  MatchRow m;
  m.format = e.format();
  for (const std::string& b : e.match().seat_bots()) m.seats.push_back(b);
  m.reason = e.reason();
  m.winner_side = e.winner_side();
  for (const uint32_t v : e.scores()) m.scores.push_back(static_cast<int>(v));
  m.hands = static_cast<int>(e.hands_played());
  m.fault_seat = e.fault_seat();
  m.fault_kind = e.fault_kind();
  m.fault_reason = e.fault_reason();
  return m;
}

// A log's row from the log itself (the index does not hold it).
MatchRow row_of(const LogSummary& s, const std::string& path) {
  MatchRow m;
  m.seats = s.seats;
  m.format = s.format;
  if (!s.readable) {
    m.status = MatchRow::Status::kNotALog;
  } else if (s.end) {
    m.reason = s.end->reason();
    m.winner_side = s.end->winner_side();
    for (const uint32_t v : s.end->scores()) m.scores.push_back(static_cast<int>(v));
    m.hands = static_cast<int>(s.end->hands_played());
    m.fault_seat = s.end->fault_seat();
    m.fault_kind = s.end->fault_kind();
  } else {
    m.status = seen_recently(path, 60) ? MatchRow::Status::kPlaying : MatchRow::Status::kUnfinished;
  }
  return m;
}

// A tournament folder and its index as last read (with the folder's definition, for the SPRT).
struct FolderIndex {
  Folder folder;
  std::shared_ptr<const ArenaSite::Indexes::Entry> index;
};

// The folder that `rel` names under served folder `root`, if it is one a tournament page can
// show, and its index; else nullopt and the response that refuses the URL in `refusal`.
std::optional<FolderIndex> folder_index(const std::vector<ServedRoot>& roots,
                                        ArenaSite::Indexes& indexes, int root, std::string_view rel,
                                        HttpResponse& refusal) {
  const ServedRoot& r = roots[static_cast<size_t>(root)];
  std::string why;
  const auto real = resolve_under(r, rel, &why);
  if (!real) {
    refusal = text_response(why == "no such file" ? 404 : 400, why);
    return std::nullopt;
  }
  const auto folder = is_dir(*real) ? as_folder(roots, root, *real) : std::nullopt;
  if (!folder) {
    refusal = text_response(404, "not a tournament folder");
    return std::nullopt;
  }
  const auto tournament_file = real_inside(r, output_path(folder->real, kDefinitionFile));
  auto index = indexes.get(folder->index, tournament_file.value_or(""));
  if (!index->ok) {
    refusal = text_response(500, "the index cannot be read: " + index->error);
    return std::nullopt;
  }
  return FolderIndex{*folder, std::move(index)};
}

// The match log that `rel` names under served folder `r`; else nullopt and the refusal.
std::optional<std::string> log_at(const ServedRoot& r, std::string_view rel,
                                  HttpResponse& refusal) {
  std::string why;
  auto real = resolve_under(r, rel, &why);
  if (!real) {
    refusal = text_response(why == "no such file" ? 404 : 400, why);
    return std::nullopt;
  }
  if (!is_file(*real) || !real->ends_with(".jsonl") || is_review_path(*real)) {
    refusal = text_response(404, "not a match log");
    return std::nullopt;
  }
  return real;
}

// What the pages of one log (/m/, /live/) start from: the log, its path in URLs ("R/PATH"), and
// the seat whose view is asked for (?seat=; viewer -1: every seat's).
struct LogPage {
  std::string real, rel_url, seat;
  int viewer = -1;
};

// The log page that `rel` names, or nullopt and the refusal: no such log, a seat that is no
// number, or a log too large to draw (413, pointing to /log/).
std::optional<LogPage> log_page(const ServedRoot& r, int root, std::string_view rel,
                                const HttpRequest& req, HttpResponse& refusal) {
  const auto real = log_at(r, rel, refusal);
  if (!real) return std::nullopt;
  LogPage p{*real, std::to_string(root) + "/" + url_encode_path(relative_to(r, *real)),
            query_value(req.target, "seat"), -1};
  if (const off_t size = file_size(p.real); size > kMaxPageLogBytes) {
    refusal =
        text_response(413, "this log is " + size_words(size) + ", more than the " +
                               size_words(kMaxPageLogBytes) + " a page draws. /log/" + p.rel_url +
                               " serves the file itself; `referee replay` steps through it");
    return std::nullopt;
  }
  if (!p.seat.empty() && !parse_int(p.seat, kMaxPlayers - 1, p.viewer)) {
    refusal = text_response(400, "seat must be a seat number");
    return std::nullopt;
  }
  return p;
}

}  // namespace

// One handler per route (arena_site.h lists them); each gets the served folder's number and
// the path under it.
HttpResponse ArenaSite::handle(const HttpRequest& req) {
  const std::string_view path = target_path(req.target);
  // The site's actions: asking for a review, and a ladder's forms (ladder_site.h).
  const bool may_post = path.starts_with("/review/") || path.starts_with("/ladder/");
  if (req.method != "GET" && !(may_post && req.method == "POST"))
    return text_response(405, may_post ? "GET or POST only" : "only GET (and HEAD) is served here");
  if (path == "/" || path == "/index.html") return folders();
  using Handler = HttpResponse (ArenaSite::*)(const HttpRequest&, int, std::string_view);
  static constexpr std::pair<std::string_view, Handler> kRoutes[] = {
      {"/t/", &ArenaSite::tournament},  {"/standings/", &ArenaSite::standings},
      {"/m/", &ArenaSite::replay},      {"/live/", &ArenaSite::live},
      {"/log/", &ArenaSite::raw_log},   {"/review/", &ArenaSite::review},
      {"/ladder/", &ArenaSite::ladder}, {"/tune/", &ArenaSite::tune}};
  for (const auto& [prefix, handler] : kRoutes) {
    int root = 0;
    std::string_view rel;
    if (split_root(path, prefix, roots_.size(), root, rel)) return (this->*handler)(req, root, rel);
  }
  return text_response(404, "no such page");
}

namespace {

// The logs of a folder that its index does not hold, in natural order (at most kMaxListed).
std::vector<std::string> not_indexed(const ServedRoot& r, const Folder& f,
                                     const ArenaSite::Indexes::Entry& index) {
  const std::string prefix = f.logs.substr(std::min(f.logs.size(), f.real.size() + 1));
  return list_names(r, f.logs, false, [&](const std::string& name) {
    return index.holds(prefix.empty() ? name : prefix + "/" + name);
  });
}

// A match row's links, for a log at `log_real` (a real path inside the root).
void link_row(const ServedRoot& r, int root, const std::string& log_real, MatchRow& m) {
  const std::string rel_url =
      std::to_string(root) + "/" + url_encode_path(relative_to(r, log_real));
  m.url = "/m/" + rel_url;
  m.log_url = "/log/" + rel_url;
  if (const off_t size = file_size(log_real); size > kMaxPageLogBytes)
    m.too_large = size_words(size);
}

// A finished match's row from its index line; links only to a log inside the root (the
// index's word is not trusted for where its logs are).
MatchRow index_row(const ServedRoot& r, int root, const Folder& f, const v1::IndexEntry& e) {
  MatchRow m = row_of(e);
  const std::string& file = e.log_file();
  const size_t slash = file.rfind('/');
  m.name = file.substr(slash == std::string::npos ? 0 : slash + 1);
  if (m.name.ends_with(".jsonl")) m.name.resize(m.name.size() - 6);
  const auto log_real = real_inside(r, f.real + "/" + file);
  if (log_real && is_file(*log_real) && file.ends_with(".jsonl")) link_row(r, root, *log_real, m);
  return m;
}

// Lines [from, to) of the index as rows, read from where line `from` starts (the offsets were
// found with the standings).
bool index_page(const ServedRoot& r, int root, const Folder& f,
                const ArenaSite::Indexes::Entry& index, size_t from, size_t to, TournamentPage& p) {
  to = std::min(to, index.finished);
  if (from >= to || from >= index.starts.size()) return true;
  return read_lines(f.index, index.starts[from], 0, to - from, kMaxIndexLineBytes,
                    [&](const std::string& line) {
                      v1::IndexEntry e;
                      if (from_json_line(line, &e, nullptr))
                        p.matches.push_back(index_row(r, root, f, e));
                    });
}

// With a filter: every line the index held at its version is counted from what the filter
// looks at (kept with the standings), and only the lines that fall on the page are read.
bool filtered_index_page(const ServedRoot& r, int root, const Folder& f,
                         const ArenaSite::Indexes::Entry& index, size_t first, TournamentPage& p) {
  std::vector<size_t> on_page;
  MatchRow m;
  for (size_t k = 0; k < index.filtered.size(); ++k) {
    const ArenaSite::Indexes::Entry::Filtered& line = index.filtered[k];
    m.seats.clear();
    for (uint32_t j = 0; j < line.num_bots; ++j)
      m.seats.push_back(index.bot_names[index.seat_bots[line.first_bot + j]]);
    m.fault_seat = line.fault_seat;
    m.fault_kind = line.fault_kind;
    ++p.listed;
    if (!p.filter.shows(m)) continue;
    if (p.shown >= first && p.shown < first + kMatchesPerPage) on_page.push_back(k);
    ++p.shown;
  }
  for (const size_t k : on_page)
    if (!index_page(r, root, f, index, k, k + 1, p)) return false;
  return true;
}

// The page's rows: the logs the index does not hold, then the index's matches. With a filter
// every row is counted if the filter shows it and kept only if it falls on the page (the
// index's rows from what the fold kept); filtered or not, the page's lines alone are read.
bool page_rows(const ServedRoot& r, int root, const Folder& f, ArenaSite::Indexes& indexes,
               const ArenaSite::Indexes::Entry& index, TournamentPage& p, std::string* error) {
  const size_t first = (p.page - 1) * kMatchesPerPage;
  const auto take = [&](MatchRow&& m) {
    p.bots.insert(m.seats.begin(), m.seats.end());
    ++p.listed;
    if (!p.filter.shows(m)) return;
    if (p.shown >= first && p.shown < first + kMatchesPerPage) p.matches.push_back(std::move(m));
    ++p.shown;
  };
  for (const std::string& name : not_indexed(r, f, index)) {
    const std::string log_real = f.logs + "/" + name;
    MatchRow m = row_of(indexes.summary(log_real), log_real);
    m.name = name.substr(0, name.size() - 6);
    if (m.fault_seat >= 0) p.kinds.insert(m.fault_kind);
    p.playing += m.status == MatchRow::Status::kPlaying;
    link_row(r, root, log_real, m);
    take(std::move(m));
  }
  if (f.index.empty()) return true;
  p.bots.insert(index.bots.begin(), index.bots.end());
  p.kinds.insert(index.kinds.begin(), index.kinds.end());
  if (p.filter.bot.empty() && p.filter.fault.empty()) {
    const size_t unindexed = p.listed;
    p.listed += index.finished;
    p.shown = p.listed;
    if (index_page(r, root, f, index, first - std::min(first, unindexed),
                   first + kMatchesPerPage - std::min(first + kMatchesPerPage, unindexed), p))
      return true;
  } else if (filtered_index_page(r, root, f, index, first, p)) {
    return true;
  }
  *error = "cannot read the page's lines of " + f.index;
  return false;
}

}  // namespace

HttpResponse ArenaSite::ladder(const HttpRequest& req, int root, std::string_view rel) {
  return ladders_->handle(req, root, rel);
}

HttpResponse ArenaSite::tune(const HttpRequest&, int root, std::string_view rel) {
  return tune_page(roots_, root, rel);
}

BodyPlan ArenaSite::plan_body(const HttpRequest& head) {
  return ladders_->plan_body(head);
}

namespace {

// A tournament folder's line in the list: its name, bots, last change, state and verdict.
void describe_run(const Folder& f, const ArenaSite::Indexes::Entry& index, FolderRow& row) {
  if (!f.tournament) return;
  const Standings& s = index.standings;
  row.title = s.tournament_name;
  for (const BotStanding& b : s.bots) row.bots.push_back(b.name);
  row.updated = index.mtime.tv_sec;
  const bool sprt_over =
      !index.monitors.empty() && std::all_of(index.monitors.begin(), index.monitors.end(),
                                             [](const SprtMonitor& m) { return m.over(); });
  if (folder_in_use(f.real) || row.playing > 0)
    row.state = FolderRow::State::kRunning;
  else if (sprt_over || (index.planned > 0 && index.finished >= index.planned))
    row.state = FolderRow::State::kFinished;
  else
    row.state = FolderRow::State::kInterrupted;
  row.planned = index.planned;
  for (const SprtMonitor& m : index.monitors)
    row.verdict += (row.verdict.empty() ? "" : "; ") +
                   (m.over() ? sprt_verdict_words(m.summary()).answer : m.status());
  if (row.verdict.empty() && s.bots.size() >= 2)
    row.verdict = s.bots[0].name + " leads (Elo " + (s.bots[0].elo >= 0 ? "+" : "") +
                  fixed_text(s.bots[0].elo, 0) + " ± " + fixed_text(s.bots[0].elo_ci95, 0) + ")";
}

}  // namespace

HttpResponse ArenaSite::folders() {
  std::vector<FolderRow> rows;
  for (size_t i = 0; i < roots_.size(); ++i) {
    std::string name;
    int64_t matches = 0;
    if (!is_ladder_folder(roots_[i].real) || !ladder_summary(roots_[i].real, name, matches))
      continue;
    FolderRow row;
    row.name = "ladder " + name + " (" + roots_[i].given + ")";
    row.url = "/ladder/" + std::to_string(i) + "/";
    row.tournament = true;
    row.finished = static_cast<size_t>(matches);
    rows.push_back(std::move(row));
  }
  for (const TuneFolder& t : find_tune_folders(roots_)) rows.push_back(tune_row(roots_, t));
  for (const Folder& f : find_folders(roots_)) {
    const ServedRoot& r = roots_[static_cast<size_t>(f.root)];
    FolderRow row;
    row.name = folder_name(roots_, f);
    row.url = folder_url(f);
    row.tournament = f.tournament;
    // The same key as the folder's page, so that one reading of the index serves both.
    const auto tournament_file = real_inside(r, output_path(f.real, kDefinitionFile));
    const auto index = indexes_->get(f.index, tournament_file.value_or(""));
    if (index->ok) row.finished = index->finished;
    const std::vector<std::string> others = not_indexed(r, f, *index);
    row.logs = index->finished + others.size();
    for (const std::string& name : others) {
      const std::string log = f.logs + "/" + name;
      if (seen_recently(log, 60)) row.playing += !indexes_->summary(log).end.has_value();
    }
    describe_run(f, *index, row);
    rows.push_back(std::move(row));
  }
  return html(folders_page(rows));
}

HttpResponse ArenaSite::standings(const HttpRequest&, int root, std::string_view rel) {
  HttpResponse res;
  const auto at = folder_index(roots_, *indexes_, root, rel, res);
  if (!at) return res;
  res.content_type = "application/json";
  res.body = standings_json(at->index->standings);
  return res;
}

HttpResponse ArenaSite::tournament(const HttpRequest& req, int root, std::string_view rel) {
  HttpResponse refusal;
  const auto at = folder_index(roots_, *indexes_, root, rel, refusal);
  if (!at) return refusal;
  const Folder* folder = &at->folder;
  const auto& index = at->index;
  const ServedRoot& r = roots_[static_cast<size_t>(root)];
  std::string why;
  TournamentPage p;
  p.title = index->standings.tournament_name.empty()
                ? folder_name(roots_, *folder)
                : "Tournament " + index->standings.tournament_name;
  p.crumbs = "<a href=\"/\">all folders</a>";
  p.standings_url = "/standings/" + std::to_string(root) + "/" + url_encode_path(folder->rel);
  p.has_index = folder->tournament;
  p.standings = &index->standings;
  p.filter.bot = query_value(req.target, "bot");
  p.filter.fault = query_value(req.target, "fault");
  if (const std::string page = query_value(req.target, "page"); !page.empty()) {
    int n = 0;
    if (!parse_int(page, 1 << 30, n) || n < 1)
      return text_response(400, "page must be a page number (1, 2, ...)");
    p.page = static_cast<size_t>(n);
  }
  // The index is being written to: the page follows it even between two matches' ends.
  p.live = !folder->index.empty() && seen_recently(folder->index, 10);
  if (!page_rows(r, root, *folder, *indexes_, *index, p, &why))
    return text_response(500, "the index cannot be read: " + why);
  return html(tournament_page(p));
}

int ArenaSite::allowed_viewer(const std::string& real, int asked) const {
  // A file that is no match log (not even one whose first line is still being written) holds
  // no hand to hide.
  const LogSummary& summary = indexes_->summary(real);
  if (spectators_full_ || summary.end.has_value() || !summary.readable) return asked;
  return kSpectator;
}

HttpResponse ArenaSite::raw_log(const HttpRequest&, int root, std::string_view rel) {
  HttpResponse res;
  const auto real = log_at(roots_[static_cast<size_t>(root)], rel, res);
  if (!real) return res;
  if (allowed_viewer(*real, -1) == kSpectator)
    return text_response(403,
                         "this match is still being played: its log holds every hand and the "
                         "seed, so it is served once the match is over. Its page (/m/) follows it "
                         "as a spectator sees it; the folder's owner can show everything with "
                         "`referee serve --spectators full`");
  // Streamed from disk: any size, at a few KiB of memory.
  res.content_type = "application/x-ndjson; charset=utf-8";
  res.file = *real;
  return res;
}

HttpResponse ArenaSite::replay(const HttpRequest& req, int root, std::string_view rel) {
  HttpResponse refusal;
  const auto p = log_page(roots_[static_cast<size_t>(root)], root, rel, req, refusal);
  if (!p) return refusal;
  return replay_page(p->real, p->rel_url, allowed_viewer(p->real, p->viewer), p->seat);
}

HttpResponse ArenaSite::live(const HttpRequest& req, int root, std::string_view rel) {
  HttpResponse refusal;
  const auto p = log_page(roots_[static_cast<size_t>(root)], root, rel, req, refusal);
  if (!p) return refusal;
  int from = 0;
  if (!parse_int(query_value(req.target, "from"), 1 << 20, from))
    return text_response(400, "from must be a step number");
  HttpResponse res;
  auto weak = std::weak_ptr<Live>(live_);
  res.on_event_stream = [weak, file = p->real, viewer = allowed_viewer(p->real, p->viewer),
                         from](std::shared_ptr<EventSink> sink) {
    if (auto l = weak.lock()) l->subscribe(file, viewer, static_cast<size_t>(from), sink);
  };
  return res;
}

namespace {

HttpResponse review_response(int status, const ReviewJobStatus& s) {
  return json_response(status, status_json(s));
}

ReviewJobStatus refused(std::string why) {
  ReviewJobStatus s;
  s.state = "refused";
  s.error = std::move(why);
  return s;
}

}  // namespace

HttpResponse ArenaSite::review(const HttpRequest& req, int root, std::string_view rel) {
  HttpResponse refusal;
  const auto p = log_page(roots_[static_cast<size_t>(root)], root, rel, req, refusal);
  if (!p) return refusal;
  if (req.method != "POST") return review_response(200, reviews_->status(p->real));
  std::string text;
  if (!read_bounded(p->real, static_cast<size_t>(kMaxPageLogBytes), text, true))
    return review_response(404, refused("the log cannot be read"));
  Replay replay;
  LogError error;
  const bool ok = load_replay(text, p->real, replay, error);
  if (!replay.finished)
    return review_response(409, refused("the match is not over: a review is of a finished match"));
  if (!ok)
    return review_response(
        422, refused("a review needs a log that `referee verify` accepts: " + error.describe()));
  const ReviewJobStatus s = reviews_->start(p->real, -1);
  return review_response(s.state == "refused" ? 503 : 202, s);
}

HttpResponse ArenaSite::replay_page(const std::string& real, const std::string& rel_url, int viewer,
                                    const std::string& seat) {
  std::string text;
  if (!read_bounded(real, static_cast<size_t>(kMaxPageLogBytes), text, true))
    return text_response(404, "cannot be read");
  Replay replay;
  LogError error;
  const bool ok = load_replay(text, real, replay, error);  // else: the steps before the error
  if (viewer != kSpectator && viewer >= num_players(replay.config.format))
    return text_response(400, "this match has no seat " + seat);
  std::vector<Frame> frames = build_frames(replay, viewer);
  if (replay.finished)
    if (const std::optional<ReviewFile> review = current_review(real, text))
      attach_review(frames, *review);
  if (frames.empty()) {
    if (!ok && !error.message.empty() && replay.header.match_id().empty() && !text.empty())
      return text_response(422, "not a match log: " + error.describe());
    return html(page("Waiting for the first hand", "<a href=\"/\">all folders</a>",
                     "<p>The match has not dealt its first hand yet; this page reloads every "
                     "second.</p>",
                     false, "<meta http-equiv=\"refresh\" content=\"1\">"));
  }
  HtmlOptions h;
  h.viewer = viewer;
  h.start = replay.finished ? 0 : static_cast<int>(frames.size()) - 1;
  // A log without its end is followed: while its match is played it grows.
  if (!replay.finished)
    h.live_url = "/live/" + rel_url +
                 "?seat=" + (viewer >= 0 && viewer != kSpectator ? std::to_string(viewer) : "");
  else if (ok)
    h.review_url = "/review/" + rel_url;
  return html(render_html(replay, frames, h));
}

}  // namespace allfives::referee::serve
