#include "serve/ladder_site.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <map>

#include "ladder/access_tokens.h"
#include "ladder/bot_upload.h"
#include "ladder/ladder_file.h"
#include "ladder/ladder_run.h"
#include "ladder/ladder_store.h"
#include "log/match_log.h"
#include "serve/http_text.h"
#include "serve/ladder_accounts.h"
#include "serve/ladder_forms.h"
#include "serve/ladder_pages.h"
#include "serve/ladder_uploads.h"
#include "serve/multipart_form.h"
#include "serve/site_pages.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {

namespace fs = std::filesystem;

struct LadderSite::State {
  static constexpr size_t kSignInsPerMinute = 10;
  std::vector<ServedRoot> roots;
  LadderAccounts accounts;
  RateLimit sign_ins{kSignInsPerMinute, std::chrono::seconds(60)};
  std::map<int, RateLimit> upload_attempts;  // per ladder, by user: every upload tried
  LadderUploads uploads;
  // Each ladder's definition as its pages last read it, with ladder.txtpb's modification time
  // and size then: read again only when the file changes.
  struct Definition {
    fs::file_time_type time;
    uintmax_t size = 0;
    LadderDef def;
  };
  std::map<int, Definition> definitions;

  const LadderDef& definition(int root, const std::string& dir) {
    const fs::path file = fs::path(dir) / kLadderDefinition;
    const fs::file_time_type time = fs::last_write_time(file);
    const uintmax_t size = fs::file_size(file);
    const auto it = definitions.find(root);
    if (it != definitions.end() && it->second.time == time && it->second.size == size)
      return it->second.def;
    return definitions[root] = Definition{time, size, load_ladder_folder(dir)},
           definitions[root].def;
  }
};

namespace {

constexpr int kRecentMatches = 20;
constexpr uint64_t kFormOverhead = 64 * 1024;  // a body's bytes beside the uploaded file
constexpr size_t kMaxFormParts = 8;
constexpr const char* kIncoming = ".incoming-";  // an upload's file, until its job ends
constexpr const char* kBody = ".body-";          // an upload's body, while it is answered

int64_t now_seconds() {
  return static_cast<int64_t>(std::time(nullptr));
}

HttpResponse redirect(const std::string& to) {
  HttpResponse r = text_response(303, "see " + to);
  r.headers.emplace_back("Location", to);
  return r;
}

// 429 with when to try again, in the text and in Retry-After.
HttpResponse too_many(const std::string& what, int64_t seconds) {
  const std::string when = seconds < 120 ? std::to_string(seconds) + " seconds"
                                         : std::to_string((seconds + 59) / 60) + " minutes";
  HttpResponse r = text_response(429, what + "; try again in " + when);
  r.headers.emplace_back("Retry-After", std::to_string(seconds));
  return r;
}

// "fox@2 250 – 145 owl@1": the sides' names and scores.
std::string match_text(const v1::IndexEntry& e) {
  const std::vector<std::string> seats(e.match().seat_bots().begin(), e.match().seat_bots().end());
  std::string out;
  for (int side = 0; side < e.scores_size(); ++side)
    out += (side ? " – " : "") + side_name(e.format(), seats, side) + " " +
           std::to_string(e.scores(side));
  if (e.fault_seat() >= 0) out += " (a forfeit)";
  return out;
}

// The replay of a recorded match: its log in its round's folder, or in one of the round's
// shards' (ladder run --slurm); "" if it is not there.
std::string replay_url(const ServedRoot& r, int root, const RecordedMatch& m) {
  const std::string round = std::string(kLadderRounds) + "/" + round_folder(m.round);
  const std::string& log = m.entry.log_file();
  if (!check_safe_name(fs::path(log).stem().string(), "log", kMaxMatchIdLength, nullptr) ||
      !log.starts_with("matches/"))
    return "";
  std::vector<std::string> places = {round + "/" + log};
  for (int shard = 0; shard < 64; ++shard)
    places.push_back(round + "/shard-" + std::to_string(shard) + "/" + log);
  for (const std::string& rel : places) {
    const auto real = real_inside(r, r.real + "/" + rel);
    if (real && fs::is_regular_file(*real))
      return "/m/" + std::to_string(root) + "/" + url_encode_path(rel);
  }
  return "";
}

// The pairwise games of `bot`'s versions against each other bot, as the standings count them.
std::vector<std::pair<std::string, HeadToHead>> head_to_head(LadderStore& s,
                                                             const std::string& bot) {
  StandingsAccumulator acc;
  s.for_each_match_of_bot(bot, [&](v1::IndexEntry&& e) { acc.add(e); });
  const auto bot_of = [](const std::string& v) { return v.substr(0, v.rfind('@')); };
  std::map<std::string, HeadToHead> by_opponent;
  for (const auto& [names, games] : acc.pairwise()) {
    if (bot_of(names.first) != bot || bot_of(names.second) == bot) continue;
    HeadToHead& h = by_opponent[bot_of(names.second)];
    h.wins += games.wins;
    h.losses += games.losses;
    h.draws += games.draws;
  }
  return {by_opponent.begin(), by_opponent.end()};
}

// A file name as an upload may carry it: the last component, of safe characters only.
bool upload_file_name(const std::string& given, std::string& name, std::string& why) {
  name = given.substr(given.find_last_of("/\\") + 1);
  bool ok = !name.empty() && name.size() <= 100 && name[0] != '.';
  for (const char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
                c == '+');
  if (!ok)
    why =
        "the file's name must be 1 to 100 letters, digits, '.', '_', '-' or '+' and not start "
        "with '.': rename it and upload again";
  return ok;
}

// What one request to a ladder's pages reads: the ladder, its database, who asks.
struct Visit {
  int root = 0;
  std::string base;  // "/ladder/R/"
  LadderDef def;
  std::unique_ptr<LadderStore> store;
  const LadderSession* session = nullptr;
  std::optional<LadderViewer> viewer() const {
    if (!session) return std::nullopt;
    return LadderViewer{session->name, session->organiser, session->csrf};
  }
  const std::string& name() const { return def.proto.name(); }
  std::string crumbs() const { return ladder_crumbs(base, name(), viewer()); }
};

HttpResponse board(Visit& v) {
  LadderBoard b;
  b.name = v.name();
  b.base = v.base;
  b.crumbs = v.crumbs();
  b.rows = v.store->leaderboard();
  b.waiting = v.store->versions_in(VersionState::kChecking);
  b.matches = v.store->match_count();
  b.now = now_seconds();
  return html(ladder_board_page(b));
}

HttpResponse bot_page(Visit& v, const ServedRoot& r, const std::string& bot) {
  LadderStore& s = *v.store;
  const std::vector<Version> versions = s.versions_of_bot(bot);
  if (versions.empty()) return text_response(404, "no such bot in this ladder");
  const std::vector<RatingRow> board = s.leaderboard();
  std::map<std::string, const RatingRow*> rating;
  for (const RatingRow& row : board) rating[row.version] = &row;
  LadderBotPage p;
  p.ladder = v.name();
  p.base = v.base;
  p.crumbs = v.crumbs();
  p.bot = bot;
  p.user = versions.front().user;
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    LadderVersionView view;
    view.version = *it;
    const auto found = rating.find(it->name());
    view.rating = found == rating.end() ? nullptr : found->second;
    for (const RecordedMatch& m : s.recent_matches(it->id, kRecentMatches))
      view.recent.push_back({match_text(m.entry), replay_url(r, v.root, m)});
    p.versions.push_back(std::move(view));
  }
  for (const Version& ver : versions) p.series.push_back({ver.name(), s.history(ver.id)});
  p.head_to_head = head_to_head(s, bot);
  return html(ladder_bot_page(p));
}

}  // namespace

bool is_ladder_folder(const std::string& real) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(real) / kLadderDatabase, ec) &&
         fs::is_regular_file(fs::path(real) / kLadderDefinition, ec);
}

bool ladder_summary(const std::string& real, std::string& name, int64_t& matches) {
  try {
    name = load_ladder_folder(real).proto.name();
    matches = LadderStore::open(real, false)->match_count();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

LadderSite::LadderSite(std::vector<ServedRoot> roots) : state_(std::make_unique<State>()) {
  state_->roots = std::move(roots);
  // Bodies and files of uploads a previous server was answering when it stopped.
  for (const ServedRoot& r : state_->roots) {
    if (!is_ladder_folder(r.real)) continue;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(r.real) / kLadderBots, ec)) {
      const std::string n = e.path().filename().string();
      if (n.starts_with(kIncoming) || n.starts_with(kBody)) fs::remove_all(e.path(), ec);
    }
  }
}

LadderSite::~LadderSite() = default;

namespace {

// The steps of each route, given the visit.
class Routes {
 public:
  Routes(LadderSite::State& s, const HttpRequest& req, const ServedRoot& r, Visit& v)
      : s_(s), req_(req), r_(r), v_(v) {}

  HttpResponse get(const std::string& path) {
    if (path.empty()) return board(v_);
    if (path.starts_with("bot/")) {
      const std::string bot = path.substr(4);
      if (!check_ladder_bot_name(bot, nullptr)) return text_response(404, "no such bot");
      return bot_page(v_, r_, bot);
    }
    if (path.starts_with("user/")) {
      const std::string user = path.substr(5);
      if (!check_safe_name(user, "user", kMaxBotNameLength, nullptr))
        return text_response(404, "no such user");
      return html(ladder_user_page(v_.name(), v_.base, v_.crumbs(), user,
                                   v_.store->bots_of_user(user),
                                   v_.session && v_.session->name == user));
    }
    if (path == "signin") return sign_in_form("");
    if (path == "upload") return v_.session ? upload_form("") : redirect(v_.base + "signin");
    if (path.starts_with("upload/")) return upload_progress(path.substr(7));
    if (path == "admin") return admin("", "");
    return text_response(404, "no such page");
  }

  HttpResponse post(const std::string& path) {
    if (path == "signin") return sign_in();
    if (!v_.session) return text_response(401, "sign in first: " + v_.base + "signin");
    if (path == "upload") return upload();
    if (!same_secret(field("csrf"), v_.session->csrf))
      return text_response(403, "this form is out of date: reload the page and send it again");
    if (path == "signout") {
      s_.accounts.close(v_.session->id);
      HttpResponse r = redirect(v_.base);
      r.headers.emplace_back("Set-Cookie", set_cookie(session_cookie_name(v_.root), "", v_.root,
                                                      req_.over_tls, std::chrono::seconds(0)));
      return r;
    }
    if (!v_.session->organiser) return text_response(403, "only the ladder's organisers may");
    if (path == "admin/retire") return retire(field("version"));
    if (path == "admin/reset") return reset(field("user"));
    return text_response(404, "no such form");
  }

 private:
  std::string field(std::string_view key) const { return query_value("?" + req_.body, key); }

  HttpResponse sign_in_form(const std::string& error, int status = 200) {
    const std::string csrf = make_token();
    HttpResponse r = html(sign_in_page(v_.base, v_.name(), csrf, error));
    r.status = status;
    r.headers.emplace_back("Set-Cookie", set_cookie(sign_in_cookie_name(v_.root), csrf, v_.root,
                                                    req_.over_tls, std::chrono::seconds(3600)));
    return r;
  }

  HttpResponse sign_in() {
    const std::string expected = cookie_value(req_.cookie, sign_in_cookie_name(v_.root));
    if (expected.empty() || !same_secret(field("csrf"), expected))
      return sign_in_form("The form was out of date; please sign in again.", 403);
    if (const int64_t wait = s_.sign_ins.take(req_.client, SteadyClock::now()))
      return too_many("too many sign-in attempts from your address", wait);
    const std::optional<int64_t> id = v_.store->user_of_token(field("token"));
    const std::optional<User> u = id ? v_.store->user(*id) : std::nullopt;
    if (!u) return sign_in_form("That token is not valid for this ladder.", 401);
    const LadderSession& session =
        s_.accounts.open(v_.root, u->id, u->name, u->organiser, SteadyClock::now());
    HttpResponse r = redirect(v_.base + "user/" + u->name);
    r.headers.emplace_back(
        "Set-Cookie", set_cookie(session_cookie_name(v_.root), session.id, v_.root, req_.over_tls,
                                 LadderAccounts::kSessionLife));
    return r;
  }

  HttpResponse upload_form(const std::string& error, int status = 200) {
    UploadForm f;
    f.base = v_.base;
    f.ladder = v_.name();
    f.viewer = *v_.viewer();
    f.bots = v_.store->bots_of_user(v_.session->name);
    f.max_bytes = v_.def.proto.max_upload_bytes();
    f.per_hour = static_cast<int>(v_.def.proto.submissions_per_hour());
    f.left_this_hour = std::max(0, f.per_hour - static_cast<int>(used_this_hour().size()));
    f.error = error;
    HttpResponse r = html(upload_page(f));
    r.status = status;
    return r;
  }

  // The times of the user's submissions in the last hour, waiting uploads counted as now.
  std::vector<int64_t> used_this_hour() {
    std::vector<int64_t> t = v_.store->submissions_since(v_.session->user, now_seconds() - 3600);
    t.insert(t.end(), static_cast<size_t>(s_.uploads.unrecorded(v_.root, v_.session->user)),
             now_seconds());
    return t;
  }

  HttpResponse upload() {
    if (req_.body_file.empty()) return text_response(400, "send the form as multipart/form-data");
    std::string boundary;
    if (!multipart_boundary(req_.content_type, boundary))
      return text_response(400, "send the form as multipart/form-data with a boundary");
    const int fd = ::open(req_.body_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return text_response(503, "the upload cannot be read back now");
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    std::vector<FormPart> parts;
    const std::string bad = parse_multipart(fd, static_cast<uint64_t>(::lseek(fd, 0, SEEK_END)),
                                            boundary, kMaxFormParts, parts);
    if (!bad.empty()) return text_response(400, "the form's body is malformed: " + bad);
    std::map<std::string, const FormPart*> by_name;
    for (const FormPart& p : parts) by_name.emplace(p.name, &p);
    const auto text = [&](const char* name, size_t limit, std::string& out) {
      const auto it = by_name.find(name);
      return it == by_name.end() ? (out.clear(), true) : read_part(fd, *it->second, limit, out);
    };
    std::string csrf, bot, command, why;
    if (!text("csrf", 128, csrf) || !same_secret(csrf, v_.session->csrf))
      return text_response(403, "this form is out of date: reload the page and send it again");
    if (!text("bot", 64, bot) || !text("command", 1000, command))
      return upload_form("A field of the form is too long.", 400);
    std::vector<std::string> words;
    if (!check_ladder_bot_name(bot, &why) || !command_words(command, words, &why))
      return upload_form(why, 400);
    const std::vector<Version> existing = v_.store->versions_of_bot(bot);
    if (!existing.empty() && existing.front().user != v_.session->name)
      return upload_form("The bot '" + bot + "' belongs to another user; choose another name.",
                         403);
    const auto file = by_name.find("file");
    std::string name;
    if (file == by_name.end() || file->second->filename.empty())
      return upload_form("Choose a file to upload.", 400);
    if (!upload_file_name(file->second->filename, name, why)) return upload_form(why, 400);
    const fs::path folder = fs::path(r_.real) / kLadderBots / (kIncoming + make_token());
    std::error_code ec;
    fs::create_directory(folder, ec);
    if (ec) return text_response(503, "the upload cannot be stored now: " + ec.message());
    if (std::string failed = copy_part(fd, *file->second, (folder / name).string());
        !failed.empty()) {
      fs::remove_all(folder, ec);
      return text_response(503, "the upload cannot be stored now: " + failed);
    }
    // A single program uploaded runs as it is (a browser sends no file mode).
    fs::permissions(folder / name, fs::perms(0755), ec);
    const std::string id = s_.uploads.start(
        {r_.real, v_.root, v_.session->user, bot, words, (folder / name).string()});
    if (id.empty()) return text_response(503, "too many uploads are waiting; try again soon");
    return redirect(v_.base + "upload/" + id);
  }

  HttpResponse upload_progress(std::string id) {
    const bool as_json = id.ends_with(".json");
    if (as_json) id.resize(id.size() - 5);
    const std::optional<UploadStatus> st = s_.uploads.status(id);
    // Only its owner learns that an upload exists.
    if (!v_.session || !st || st->root != v_.root || st->user != v_.session->user)
      return text_response(404, "no such upload of yours");
    if (as_json) return json_response(200, upload_status_json(*st));
    return html(upload_job_page(v_.base, v_.name(), *v_.viewer(), st->bot,
                                v_.base + "upload/" + id + ".json"));
  }

  HttpResponse admin(const std::string& notice, const std::string& token) {
    if (!v_.session) return redirect(v_.base + "signin");
    if (!v_.session->organiser) return text_response(403, "only the ladder's organisers may");
    AdminPage p;
    p.base = v_.base;
    p.ladder = v_.name();
    p.viewer = *v_.viewer();
    p.versions = v_.store->versions();
    p.users = v_.store->users();
    p.notice = notice;
    p.new_token = token;
    return html(admin_page(p));
  }

  HttpResponse retire(const std::string& name) {
    const std::optional<Version> v = v_.store->version(name);
    if (!v) return text_response(404, "no such version");
    v_.store->set_state(v->id, VersionState::kRetired, v->report);
    return admin(v->name() + " retired: it keeps its record and plays no more.", "");
  }

  HttpResponse reset(const std::string& user) {
    const std::optional<std::string> token = v_.store->reset_token(user);
    if (!token) return text_response(404, "no such user");
    const std::optional<int64_t> id = v_.store->user_of_token(*token);
    if (id) s_.accounts.close_user(v_.root, *id);
    return admin("A new token for " + user + " (shown only now; the old one no longer works):",
                 *token);
  }

  LadderSite::State& s_;
  const HttpRequest& req_;
  const ServedRoot& r_;
  Visit& v_;
};

}  // namespace

HttpResponse LadderSite::handle(const HttpRequest& req, int root, std::string_view rel) {
  const ServedRoot& r = state_->roots[static_cast<size_t>(root)];
  if (!is_ladder_folder(r.real)) return text_response(404, "not a ladder folder");
  std::string path;
  if (!percent_decode(rel, path)) return text_response(400, "a malformed path");
  try {
    Visit v;
    v.root = root;
    v.base = "/ladder/" + std::to_string(root) + "/";
    v.def = state_->definition(root, r.real);
    v.store = LadderStore::open(r.real, false);
    v.session = state_->accounts.find(root, req.cookie, SteadyClock::now());
    Routes routes(*state_, req, r, v);
    return req.method == "POST" ? routes.post(path) : routes.get(path);
  } catch (const std::exception& e) {
    return text_response(503, std::string("the ladder cannot be read now: ") + e.what());
  }
}

BodyPlan LadderSite::plan_body(const HttpRequest& head) {
  BodyPlan plan;
  const std::string_view path = target_path(head.target);
  int root = -1;
  for (size_t i = 0; i < state_->roots.size(); ++i)
    if (path == "/ladder/" + std::to_string(i) + "/upload") root = static_cast<int>(i);
  if (root < 0 || !is_ladder_folder(state_->roots[static_cast<size_t>(root)].real)) return plan;
  const std::string& dir = state_->roots[static_cast<size_t>(root)].real;
  const LadderSession* session = state_->accounts.find(root, head.cookie, SteadyClock::now());
  if (!session) {
    plan.refusal = text_response(401, "sign in first: /ladder/" + std::to_string(root) + "/signin");
    return plan;
  }
  try {
    const LadderDef def = load_ladder_folder(dir);
    std::vector<int64_t> used =
        LadderStore::open(dir, false)->submissions_since(session->user, now_seconds() - 3600);
    const int waiting = state_->uploads.unrecorded(root, session->user);
    used.insert(used.end(), static_cast<size_t>(waiting), now_seconds());
    const uint32_t per_hour = def.proto.submissions_per_hour();
    if (used.size() >= per_hour) {
      plan.refusal =
          too_many("you have submitted " + std::to_string(used.size()) + " versions this hour",
                   std::max<int64_t>(1, used.front() + 3600 - now_seconds()));
      return plan;
    }
    // Refused uploads cost unpacking too: every attempt counts.
    RateLimit& tries =
        state_->upload_attempts.try_emplace(root, per_hour, std::chrono::seconds(3600))
            .first->second;
    if (const int64_t wait = tries.take(std::to_string(session->user), SteadyClock::now())) {
      plan.refusal = too_many(
          "you have tried " + std::to_string(per_hour) + " uploads this hour, the ladder's limit",
          wait);
      return plan;
    }
    plan.file = (fs::path(dir) / kLadderBots / (kBody + make_token())).string();
    plan.limit = def.proto.max_upload_bytes() + kFormOverhead;
    plan.too_large = "this ladder takes uploads of at most " +
                     std::to_string(def.proto.max_upload_bytes() >> 20) + " MiB";
  } catch (const std::exception& e) {
    plan.refusal = text_response(503, std::string("the ladder cannot be read now: ") + e.what());
  }
  return plan;
}

}  // namespace allfives::referee::serve
