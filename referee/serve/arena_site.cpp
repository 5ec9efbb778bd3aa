#include "serve/arena_site.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "log/json_text.h"
#include "log/log_reader.h"
#include "match/match_result.h"
#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"
#include "tournament/index_file.h"
#include "tournament/sprt.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {
namespace {

constexpr size_t kMaxListed = 20000;          // matches listed per folder
constexpr size_t kMaxSummaryBytes = 8 << 20;  // a log read whole only to list it

// ---------------------------------------------------------------------------------------
// Files.

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Names in a folder, sorted; folders only or .jsonl files only.
std::vector<std::string> list_names(const std::string& dir, bool folders) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    const std::string path = dir + "/" + name;
    if (folders ? is_dir(path)
                : (ends_with(name, ".jsonl") && name != "index.jsonl" && is_file(path)))
      out.push_back(name);
    if (out.size() >= kMaxListed) break;
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// At most `cap` bytes of a file; false if it cannot be read. With `whole_lines` a torn last
// line (a record being appended right now) is left out.
bool read_file(const std::string& path, size_t cap, std::string& out, bool whole_lines) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[65536];
  while (out.size() < cap) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, cap - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (whole_lines) {
    const size_t nl = out.rfind('\n');
    out.resize(nl == std::string::npos ? 0 : nl + 1);
  }
  return true;
}

// A folder worth listing: a tournament's output (index.jsonl or matches/) or loose logs.
struct Folder {
  int root = 0;
  std::string rel;   // relative to the root, "" for the root
  std::string real;  // its real path
  std::string logs;  // where its logs are: real/matches or real
};

std::optional<Folder> as_folder(int root, const std::string& rel, const std::string& real) {
  Folder f{root, rel, real, real};
  if (is_dir(real + "/matches")) {
    f.logs = real + "/matches";
    return f;
  }
  if (is_file(real + "/index.jsonl") || !list_names(real, false).empty()) return f;
  return std::nullopt;
}

std::vector<Folder> find_folders(const std::vector<ServedRoot>& roots) {
  std::vector<Folder> out;
  for (size_t r = 0; r < roots.size(); ++r) {
    if (auto f = as_folder(static_cast<int>(r), "", roots[r].real)) out.push_back(*f);
    for (const std::string& name : list_names(roots[r].real, true)) {
      std::string why;
      const auto real = resolve_under(roots[r], url_encode_path(name), &why);
      if (!real) continue;  // a link out of the folder
      if (auto f = as_folder(static_cast<int>(r), relative_to(roots[r], *real), *real))
        out.push_back(*f);
    }
  }
  return out;
}

std::string folder_url(const Folder& f) {
  return "/t/" + std::to_string(f.root) + "/" + url_encode_path(f.rel) + (f.rel.empty() ? "" : "/");
}

// ---------------------------------------------------------------------------------------
// HTML.

const char* kStyle = R"(<style>
:root{--bg:#0f2219;--panel:#132b20;--text:#eef3ef;--muted:#9db5a7;--accent:#f4b942;--good:#7df09a;--bad:#ff8a80}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--bg);color:var(--text)}
header{background:#0a1912;padding:10px 20px;display:flex;gap:16px;align-items:baseline}header h1{margin:0;font-size:18px}
header a{color:var(--muted)}main{padding:14px 20px;max-width:1200px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
h2{font-size:14px;text-transform:uppercase;letter-spacing:.6px;color:var(--muted);margin:22px 0 8px}
table{border-collapse:collapse;background:var(--panel);border-radius:10px;overflow:hidden}
th,td{padding:5px 10px;text-align:right;white-space:nowrap}th{color:var(--muted);font-weight:600;background:#0d2118}
td.l,th.l{text-align:left}tr:nth-child(even) td{background:rgba(255,255,255,.03)}
.muted{color:var(--muted)}.live{color:var(--good);font-weight:700}.fault{color:var(--bad)}
.card{background:var(--panel);border-radius:10px;padding:10px 14px;margin:8px 0}
.seats a{margin-right:6px;font-size:12px}
</style>)";

std::string page(const std::string& title, const std::string& crumbs, const std::string& body,
                 const std::string& head_extra = "") {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
         "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
         html_escape(title) + "</title>" + kStyle + head_extra + "</head><body><header><h1>" +
         html_escape(title) + "</h1>" + crumbs + "</header><main>" + body +
         "</main></body></html>\n";
}

// Numbers as `referee standings` prints them (standings.cpp), "-0" shown as "0".
std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) s.erase(0, 1);
  return s;
}
std::string signed_fixed(double v, int decimals) {
  std::string s = fixed(v, decimals);
  return s[0] == '-' || s.find_first_not_of("0.") == std::string::npos ? s : "+" + s;
}

std::string format_words(v1::Format f) {
  if (f == v1::FORMAT_TWO_PLAYERS) return format_label(Format::kTwoPlayers);
  if (f == v1::FORMAT_THREE_PLAYERS) return format_label(Format::kThreePlayers);
  if (f == v1::FORMAT_FOUR_PLAYERS) return format_label(Format::kFourPlayers);
  if (f == v1::FORMAT_PARTNERSHIPS) return format_label(Format::kPartnerships);
  return "mixed formats";
}

std::string standings_html(const Standings& s) {
  std::string out =
      "<table id=\"standings\"><tr><th>Rank</th><th class=\"l\">Bot</th>"
      "<th>Matches</th><th>W</th><th>L</th><th>D</th><th>Forfeits</th>"
      "<th>Pts for</th><th>Pts against</th><th>Elo</th></tr>";
  for (size_t i = 0; i < s.bots.size(); ++i) {
    const BotStanding& b = s.bots[i];
    // "=": a statistical tie with a neighbour, as `referee standings` marks it.
    std::string rank = std::to_string(i + 1);
    if (b.tied) rank += '=';
    out += "<tr><td>" + rank + "</td><td class=\"l\">" + html_escape(b.name) + "</td><td>" +
           std::to_string(b.matches) + "</td><td>" + std::to_string(b.wins) + "</td><td>" +
           std::to_string(b.losses) + "</td><td>" + std::to_string(b.draws) + "</td><td>" +
           std::to_string(b.forfeits_total) + "</td><td>" + fixed(b.avg_points_for(), 1) +
           "</td><td>" + fixed(b.avg_points_against(), 1) + "</td><td>" + signed_fixed(b.elo, 0) +
           " ± " + fixed(b.elo_ci95, 0) + "</td></tr>";
  }
  out += "</table>";
  std::string forfeits;
  for (const BotStanding& b : s.bots) {
    if (b.forfeits_total == 0) continue;
    forfeits += "<div>" + html_escape(b.name) + ":";
    const char* sep = " ";
    for (int k = 0; k < static_cast<int>(b.forfeits.size()); ++k) {
      if (b.forfeits[k] == 0) continue;
      forfeits +=
          sep + describe(static_cast<v1::FaultKind>(k)) + " " + std::to_string(b.forfeits[k]);
      sep = ", ";
    }
    forfeits += "</div>";
  }
  if (!forfeits.empty())
    out += "<h2>Forfeits by kind</h2><div class=\"card\">" + forfeits + "</div>";
  if (s.bots.size() > 1) {
    out +=
        "<h2>Head to head</h2><p class=\"muted\">Row against column, pairwise games: "
        "wins-losses-draws.</p><table id=\"h2h\"><tr><th></th><th class=\"l\"></th>";
    for (size_t j = 0; j < s.bots.size(); ++j) out += "<th>" + std::to_string(j + 1) + "</th>";
    out += "</tr>";
    for (size_t i = 0; i < s.bots.size(); ++i) {
      out += "<tr><td>" + std::to_string(i + 1) + "</td><td class=\"l\">" +
             html_escape(s.bots[i].name) + "</td>";
      for (size_t j = 0; j < s.bots.size(); ++j) {
        const HeadToHead& h = s.cross[i][j];
        out += "<td>" +
               (i == j      ? std::string("-")
                : h.games() ? std::to_string(h.wins) + "-" + std::to_string(h.losses) + "-" +
                                  std::to_string(h.draws)
                            : std::string(".")) +
               "</td>";
      }
      out += "</tr>";
    }
    out += "</table>";
  }
  for (const std::string& note : s.notes) out += "<p class=\"muted\">" + html_escape(note) + "</p>";
  return out;
}

// What the match list says of a log the index does not (yet) hold.
struct LogSummary {
  std::vector<std::string> seats;
  std::optional<v1::LogMatchEnd> end;
  std::string format;
  bool readable = false;
};

LogSummary summarize_log(const std::string& path) {
  LogSummary s;
  std::string text;
  if (!read_file(path, kMaxSummaryBytes, text, true)) return s;
  // `referee match` makes its log before the bots start and writes the header once they
  // answer: an empty log is a match starting.
  s.readable = text.empty();
  size_t at = 0;
  bool first = true;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line(text.data() + at, nl - at);
    at = nl + 1;
    if (!first && line.find("\"match_end\"") == std::string_view::npos) continue;
    v1::LogRecord rec;
    if (!parse_log_line(line, rec, nullptr)) {
      if (first) return s;
      continue;
    }
    if (first) {
      first = false;
      if (!rec.has_header()) return s;
      s.readable = true;
      for (const auto& b : rec.header().bots()) s.seats.push_back(b.display_name());
      s.format = v1::Format_Name(rec.header().format());
    } else if (rec.has_match_end()) {
      s.end = rec.match_end();
    }
  }
  return s;
}

std::string join_scores(const google::protobuf::RepeatedField<uint32_t>& v) {
  std::string out;
  for (int i = 0; i < v.size(); ++i) out += (i ? "–" : "") + std::to_string(v[i]);
  return out;
}

bool seen_recently(const std::string& path, int seconds) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime <= seconds;
}

std::string seat_links(const std::string& url, size_t seats) {
  std::string out = "<span class=\"seats\">";
  for (size_t s = 0; s < seats; ++s)
    out +=
        "<a href=\"" + url + "?seat=" + std::to_string(s) + "\">seat " + std::to_string(s) + "</a>";
  return out + "</span>";
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Live logs: one follower per (log, viewer), shared by every page watching it, checked on a
// timer while someone watches; each growth is turned into new steps once and the same bytes
// go to every watcher.

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
  size_t refresh(Follower& f) {
    struct stat st {};
    if (::stat(f.path.c_str(), &st) != 0 || st.st_size == f.size) return f.steps.size();
    f.size = st.st_size;
    const auto started = std::chrono::steady_clock::now();
    struct Throttle {
      Follower& f;
      std::chrono::steady_clock::time_point started;
      ~Throttle() {
        const auto now = std::chrono::steady_clock::now();
        f.next_check = now + 10 * (now - started);
      }
    } throttle{f, started};
    std::string text;
    if (!read_file(f.path, kMaxLogFileBytes, text, true)) return f.steps.size();
    Replay replay;
    LogError error;
    load_replay(text, f.path, replay, error);  // on an error: the steps before it
    const std::vector<Frame> frames = build_frames(replay, f.viewer);
    // Frames only ever grow at the end; a shorter list means the file was replaced.
    size_t from = std::min(f.steps.size(), frames.size());
    if (frames.size() < f.steps.size()) from = 0;
    f.steps.resize(from);
    for (size_t i = from; i < frames.size(); ++i)
      f.steps.push_back(html_step_json(replay, frames[i]));
    f.hands = html_hands_json(replay, frames);
    f.finished = replay.finished;
    return from;
  }

  static std::string message(const Follower& f, size_t from) {
    std::string m = "{\"from\":" + std::to_string(from) +
                    ",\"finished\":" + (f.finished ? "true" : "false") + ",\"hands\":" + f.hands +
                    ",\"steps\":[";
    for (size_t i = from; i < f.steps.size(); ++i) {
      if (i > from) m += ',';
      m += f.steps[i];
    }
    return m + "]}";
  }

  // Returns false if `from` is beyond the steps there are.
  bool subscribe(const std::string& path, int viewer, size_t from,
                 std::shared_ptr<EventSink> sink) {
    Follower& f = followers[{path, viewer}];
    if (f.path.empty()) {
      f.path = path;
      f.viewer = viewer;
    }
    refresh(f);
    if (from < f.steps.size() || f.finished)
      sink->send(std::make_shared<const std::string>(
          EventSink::event_frame("", message(f, std::min(from, f.steps.size())))));
    if (f.finished) {
      sink->close();
    } else {
      f.watchers.push_back({std::move(sink)});
    }
    if (f.watchers.empty()) followers.erase({path, viewer});
    tick();
    return true;
  }

  void tick() {
    if (ticking || followers.empty()) return;
    ticking = true;
    timer.expires_after(interval);
    timer.async_wait([self = weak_from_this()](const boost::system::error_code& ec) {
      auto live = self.lock();
      if (!live || ec) return;
      live->ticking = false;
      live->poll();
      live->tick();
    });
  }

  void poll() {
    for (auto it = followers.begin(); it != followers.end();) {
      Follower& f = it->second;
      std::erase_if(f.watchers, [](const Watcher& w) { return w.sink->closed(); });
      if (f.watchers.empty()) {
        it = followers.erase(it);
        continue;
      }
      if (std::chrono::steady_clock::now() < f.next_check) {
        ++it;
        continue;
      }
      const size_t before = f.steps.size();
      const bool was_finished = f.finished;
      const off_t size = f.size;
      const size_t from = refresh(f);
      if (f.size != size &&
          (from < f.steps.size() || f.steps.size() != before || f.finished != was_finished)) {
        auto frame =
            std::make_shared<const std::string>(EventSink::event_frame("", message(f, from)));
        for (const Watcher& w : f.watchers) w.sink->send(frame);
      }
      if (f.finished) {
        for (const Watcher& w : f.watchers) w.sink->close();
        it = followers.erase(it);
        continue;
      }
      ++it;
    }
  }
};

// A folder's index.jsonl read and its standings computed once per version of the file (its
// size and modification time): pages of a tournament are asked for far more often than it
// changes, and reading an index is most of a page's cost.
struct ArenaSite::Indexes {
  struct Entry {
    off_t size = -1;
    struct timespec mtime {};
    bool ok = false;
    std::string error;
    std::vector<v1::IndexEntry> entries;
    Standings standings;
  };
  static constexpr size_t kMaxFolders = 256;
  std::map<std::string, std::shared_ptr<const Entry>> by_path;

  // The same for logs the index does not hold (a folder of `referee match` logs, a match
  // being played): each is read whole, so only once per version.
  struct Summary {
    off_t size = -1;
    struct timespec mtime {};
    LogSummary summary;
  };
  static constexpr size_t kMaxSummaries = 20000;
  std::map<std::string, Summary> summaries;

  const LogSummary& summary(const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    auto it = summaries.find(path);
    if (it != summaries.end() && it->second.size == st.st_size &&
        it->second.mtime.tv_sec == st.st_mtim.tv_sec &&
        it->second.mtime.tv_nsec == st.st_mtim.tv_nsec)
      return it->second.summary;
    if (summaries.size() >= kMaxSummaries) summaries.clear();
    Summary& s = summaries[path];
    s.size = st.st_size;
    s.mtime = st.st_mtim;
    s.summary = summarize_log(path);
    return s.summary;
  }

  std::shared_ptr<const Entry> get(const std::string& path) {
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    auto it = by_path.find(path);
    if (it != by_path.end() && it->second->size == (exists ? st.st_size : -1) &&
        it->second->mtime.tv_sec == st.st_mtim.tv_sec &&
        it->second->mtime.tv_nsec == st.st_mtim.tv_nsec)
      return it->second;
    auto e = std::make_shared<Entry>();
    e->size = exists ? st.st_size : -1;
    if (exists) e->mtime = st.st_mtim;
    std::vector<std::string> notes;
    e->ok = read_index(path, false, e->entries, notes, &e->error);
    if (e->ok) {
      e->standings = compute_standings(e->entries);
      for (const std::string& n : notes) e->standings.notes.push_back(n);
      // The SPRT's state, from the folder's definition (standings.json's "sprt").
      std::string why;
      if (!add_sprt_from_folder(e->standings, std::filesystem::path(path).parent_path().string(),
                                e->entries, &why))
        e->standings.notes.push_back("no SPRT state: " + why);
    }
    if (by_path.size() >= kMaxFolders) by_path.clear();
    by_path[path] = e;
    return e;
  }
};

ArenaSite::ArenaSite(boost::asio::io_context& ioc, std::vector<ServedRoot> roots,
                     SiteOptions options)
    : roots_(std::move(roots)),
      live_(std::make_shared<Live>(ioc, options.poll_interval)),
      indexes_(std::make_shared<Indexes>()) {}

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

}  // namespace

HttpResponse ArenaSite::handle(const HttpRequest& req) {
  if (req.method != "GET") return text_response(405, "only GET is served here");
  const std::string_view path = target_path(req.target);
  int root = 0;
  std::string_view rel;

  if (path == "/" || path == "/index.html") {
    std::string body =
        "<h2>Tournaments and match folders</h2><table id=\"folders\"><tr><th "
        "class=\"l\">Folder</th><th>Matches logged</th><th>Finished "
        "(index)</th></tr>";
    const std::vector<Folder> folders = find_folders(roots_);
    for (const Folder& f : folders) {
      const auto index = indexes_->get(f.real + "/index.jsonl");
      std::string name = roots_[static_cast<size_t>(f.root)].given;
      if (!f.rel.empty()) name += "/" + f.rel;
      body += "<tr><td class=\"l\"><a href=\"" + folder_url(f) + "\">" + html_escape(name) +
              "</a></td><td>" + std::to_string(list_names(f.logs, false).size()) + "</td><td>" +
              (index->ok ? std::to_string(index->entries.size()) : "unreadable") + "</td></tr>";
    }
    body += "</table>";
    if (folders.empty())
      body +=
          "<p class=\"muted\">No tournament output or match log under the served "
          "folders yet.</p>";
    return HttpResponse{
        200, "text/html; charset=utf-8", page("All Fives arena", "", body), {}, nullptr};
  }

  if (split_root(path, "/t/", roots_.size(), root, rel) ||
      split_root(path, "/standings/", roots_.size(), root, rel)) {
    const bool json = path.substr(0, 11) == "/standings/";
    const ServedRoot& r = roots_[static_cast<size_t>(root)];
    std::string why;
    const auto real = resolve_under(r, rel, &why);
    if (!real) return text_response(why == "no such file" ? 404 : 400, why);
    const auto folder =
        is_dir(*real) ? as_folder(root, relative_to(r, *real), *real) : std::nullopt;
    if (!folder) return text_response(404, "not a tournament folder");
    const auto index = indexes_->get(*real + "/index.jsonl");
    if (!index->ok) return text_response(500, "the index cannot be read: " + index->error);
    const std::vector<v1::IndexEntry>& entries = index->entries;
    const Standings& standings = index->standings;
    if (json) {
      HttpResponse res{200, "application/json", standings_json(standings), {}, nullptr};
      return res;
    }
    const std::string base = "/m/" + std::to_string(root) + "/";
    std::map<std::string, const v1::IndexEntry*> by_log;
    for (const auto& e : entries) by_log[e.log_file()] = &e;
    std::string title = standings.tournament_name.empty()
                            ? r.given + (folder->rel.empty() ? "" : "/" + folder->rel)
                            : "Tournament " + standings.tournament_name;
    std::string body = "<p class=\"muted\">" + html_escape(format_words(standings.format)) + " · " +
                       std::to_string(standings.matches) + " finished match" +
                       (standings.matches == 1 ? "" : "es") + " · <a href=\"/standings/" +
                       std::to_string(root) + "/" + url_encode_path(folder->rel) +
                       "\">standings as JSON</a></p>";
    if (!entries.empty()) body += "<h2>Standings</h2>" + standings_html(standings);
    body +=
        "<h2>Matches</h2><table id=\"matches\"><tr><th class=\"l\">Match</th><th "
        "class=\"l\">Seats</th><th class=\"l\">Result</th><th>Hands</th><th "
        "class=\"l\">Fault</th><th class=\"l\">Views</th></tr>";
    for (const std::string& name : list_names(folder->logs, false)) {
      const std::string log_real = folder->logs + "/" + name;
      const std::string log_rel = relative_to(r, log_real);
      const std::string url = base + url_encode_path(log_rel);
      const std::string from_folder = log_real.substr(folder->real.size() + 1);
      std::string seats, result, hands, fault, status;
      size_t n_seats = 0;
      auto it = by_log.find(from_folder);
      if (it != by_log.end()) {
        const v1::IndexEntry& e = *it->second;
        n_seats = static_cast<size_t>(e.match().seat_bots_size());
        for (int s = 0; s < e.match().seat_bots_size(); ++s)
          seats += (s ? ", " : "") + html_escape(e.match().seat_bots(s));
        result = join_scores(e.scores());
        result += e.winner_side() >= 0 ? " · side " + std::to_string(e.winner_side()) + " won"
                                       : std::string(" · draw");
        hands = std::to_string(e.hands_played());
        if (e.fault_seat() >= 0)
          fault = "<span class=\"fault\">seat " + std::to_string(e.fault_seat()) + " " +
                  describe(e.fault_kind()) + ": " + html_escape(e.fault_reason()) + "</span>";
      } else {
        const LogSummary& s = indexes_->summary(log_real);
        n_seats = s.seats.size();
        for (size_t k = 0; k < s.seats.size(); ++k)
          seats += (k ? ", " : "") + html_escape(s.seats[k]);
        if (!s.readable) {
          result = "<span class=\"muted\">not a match log</span>";
        } else if (s.end) {
          result = join_scores(s.end->scores());
          result += s.end->winner_side() >= 0
                        ? " · side " + std::to_string(s.end->winner_side()) + " won"
                        : std::string(" · draw");
          hands = std::to_string(s.end->hands_played());
          if (s.end->fault_seat() >= 0)
            fault = "<span class=\"fault\">seat " + std::to_string(s.end->fault_seat()) + " " +
                    describe(s.end->fault_kind()) + "</span>";
        } else if (seen_recently(log_real, 60)) {
          result = "<span class=\"live\">● playing now</span>";
        } else {
          result = "<span class=\"muted\">unfinished</span>";
        }
      }
      body += "<tr><td class=\"l\"><a href=\"" + url + "\">" +
              html_escape(name.substr(0, name.size() - 6)) + "</a></td><td class=\"l\">" + seats +
              "</td><td class=\"l\">" + result + "</td><td>" + hands + "</td><td class=\"l\">" +
              fault + "</td><td class=\"l\">" + seat_links(url, n_seats) + "</td></tr>";
    }
    body += "</table>";
    return HttpResponse{200,
                        "text/html; charset=utf-8",
                        page(title, "<a href=\"/\">all folders</a>", body),
                        {},
                        nullptr};
  }

  const bool replay_page = split_root(path, "/m/", roots_.size(), root, rel);
  const bool live = !replay_page && split_root(path, "/live/", roots_.size(), root, rel);
  const bool raw = !replay_page && !live && split_root(path, "/log/", roots_.size(), root, rel);
  if (replay_page || live || raw) {
    const ServedRoot& r = roots_[static_cast<size_t>(root)];
    std::string why;
    const auto real = resolve_under(r, rel, &why);
    if (!real) return text_response(why == "no such file" ? 404 : 400, why);
    if (!is_file(*real) || !ends_with(*real, ".jsonl"))
      return text_response(404, "not a match log");
    if (raw) {
      HttpResponse res{200, "application/x-ndjson; charset=utf-8", "", {}, nullptr};
      if (!read_file(*real, kMaxLogFileBytes, res.body, false))
        return text_response(404, "cannot be read");
      return res;
    }
    int viewer = -1;
    const std::string seat = query_value(req.target, "seat");
    if (!seat.empty() && !parse_int(seat, kMaxPlayers - 1, viewer))
      return text_response(400, "seat must be a seat number");
    if (live) {
      int from = 0;
      if (!parse_int(query_value(req.target, "from"), 1 << 20, from))
        return text_response(400, "from must be a step number");
      HttpResponse res;
      auto weak = std::weak_ptr<Live>(live_);
      const std::string file = *real;
      res.on_event_stream = [weak, file, viewer, from](std::shared_ptr<EventSink> sink) {
        if (auto l = weak.lock()) l->subscribe(file, viewer, static_cast<size_t>(from), sink);
      };
      return res;
    }
    std::string text;
    if (!read_file(*real, kMaxLogFileBytes, text, true))
      return text_response(404, "cannot be read");
    Replay replay;
    LogError error;
    const bool ok = load_replay(text, *real, replay, error);  // else: the steps before the error
    if (viewer >= num_players(replay.config.format))
      return text_response(400, "this match has no seat " + seat);
    const std::vector<Frame> frames = build_frames(replay, viewer);
    if (frames.empty()) {
      if (!ok && !error.message.empty() && replay.header.match_id().empty() && !text.empty())
        return text_response(422, "not a match log: " + error.describe());
      return HttpResponse{200,
                          "text/html; charset=utf-8",
                          page("Waiting for the first hand", "<a href=\"/\">all folders</a>",
                               "<p>The match has not dealt its first hand yet; this page "
                               "reloads every second.</p>",
                               "<meta http-equiv=\"refresh\" content=\"1\">"),
                          {},
                          nullptr};
    }
    HtmlOptions h;
    h.viewer = viewer;
    h.start = replay.finished ? 0 : static_cast<int>(frames.size()) - 1;
    // A log without its end is followed: while its match is played it grows.
    if (!replay.finished)
      h.live_url = "/live/" + std::to_string(root) + "/" + url_encode_path(relative_to(r, *real)) +
                   "?seat=" + (viewer >= 0 ? std::to_string(viewer) : "");
    return HttpResponse{
        200, "text/html; charset=utf-8", render_html(replay, frames, h), {}, nullptr};
  }
  return text_response(404, "no such page");
}

}  // namespace allfives::referee::serve
