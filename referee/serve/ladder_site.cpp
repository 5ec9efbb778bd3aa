#include "serve/ladder_site.h"

#include <filesystem>
#include <map>

#include "ladder/ladder_file.h"
#include "ladder/ladder_run.h"
#include "ladder/ladder_store.h"
#include "log/match_log.h"
#include "serve/http_text.h"
#include "serve/ladder_pages.h"
#include "serve/site_pages.h"

namespace allfives::referee::serve {
namespace {

namespace fs = std::filesystem;

constexpr int kRecentMatches = 20;

HttpResponse html(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
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

HttpResponse board(LadderStore& s, const std::string& name, const std::string& base) {
  LadderBoard b;
  b.name = name;
  b.base = base;
  b.rows = s.leaderboard();
  b.waiting = s.versions_in(VersionState::kChecking);
  b.matches = s.match_count();
  return html(ladder_board_page(b));
}

HttpResponse bot_page(LadderStore& s, const ServedRoot& r, int root, const std::string& name,
                      const std::string& base, const std::string& bot) {
  const std::vector<Version> versions = s.versions_of_bot(bot);
  if (versions.empty()) return text_response(404, "no such bot in this ladder");
  const std::vector<RatingRow> board = s.leaderboard();
  std::map<std::string, const RatingRow*> rating;
  for (const RatingRow& row : board) rating[row.version] = &row;
  LadderBotPage p;
  p.ladder = name;
  p.base = base;
  p.bot = bot;
  p.user = versions.front().user;
  for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
    LadderVersionView view;
    view.version = *v;
    const auto it = rating.find(v->name());
    view.rating = it == rating.end() ? nullptr : it->second;
    for (const RecordedMatch& m : s.recent_matches(v->id, kRecentMatches))
      view.recent.push_back({match_text(m.entry), replay_url(r, root, m)});
    p.versions.push_back(std::move(view));
  }
  for (const Version& v : versions) p.series.push_back({v.name(), s.history(v.id)});
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

HttpResponse ladder_response(const ServedRoot& r, int root, std::string_view rel) {
  if (!is_ladder_folder(r.real)) return text_response(404, "not a ladder folder");
  const std::string base = "/ladder/" + std::to_string(root) + "/";
  std::string decoded;
  if (!percent_decode(rel, decoded)) return text_response(400, "a malformed path");
  try {
    const std::string name = load_ladder_folder(r.real).proto.name();
    const std::unique_ptr<LadderStore> s = LadderStore::open(r.real, false);
    if (decoded.empty()) return board(*s, name, base);
    if (decoded.starts_with("bot/")) {
      const std::string bot = decoded.substr(4);
      if (!check_ladder_bot_name(bot, nullptr)) return text_response(404, "no such bot");
      return bot_page(*s, r, root, name, base, bot);
    }
    if (decoded.starts_with("user/")) {
      const std::string user = decoded.substr(5);
      if (!check_safe_name(user, "user", kMaxBotNameLength, nullptr))
        return text_response(404, "no such user");
      return html(ladder_user_page(name, base, user, s->bots_of_user(user)));
    }
  } catch (const std::exception& e) {
    return text_response(503, std::string("the ladder's database cannot be read now: ") + e.what());
  }
  return text_response(404, "no such page");
}

}  // namespace allfives::referee::serve
