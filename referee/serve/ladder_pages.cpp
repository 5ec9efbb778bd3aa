#include "serve/ladder_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "serve/http_text.h"
#include "serve/site_pages.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {
namespace {

std::string bot_link(const std::string& base, const std::string& version) {
  const std::string bot = version.substr(0, version.rfind('@'));
  return "<a href=\"" + base + "bot/" + html_escape(bot) + "\">" + html_escape(version) + "</a>";
}

std::string user_link(const std::string& base, const std::string& user) {
  return "<a href=\"" + base + "user/" + html_escape(user) + "\">" + html_escape(user) + "</a>";
}

// "3 min ago": how long before `now` a version last played; "never" for 0.
std::string ago(int64_t then, int64_t now) {
  if (then <= 0) return "never";
  const int64_t s = std::max<int64_t>(0, now - then);
  if (s < 60) return "just now";
  if (s < 3600) return std::to_string(s / 60) + " min ago";
  if (s < 86400 * 2) return std::to_string(s / 3600) + " h ago";
  return std::to_string(s / 86400) + " days ago";
}

std::string rating_text(const RatingRow& r) {
  std::string out = r.elo > 0 ? "+" : "";
  out += fixed_text(r.elo, 0);
  out += " ± ";
  out += fixed_text(r.ci95, 0);
  return out;
}

}  // namespace

std::string ladder_board_page(const LadderBoard& b) {
  std::string body =
      "<h2>Leaderboard</h2><div class=\"scroll\"><table id=\"leaderboard\"><tr><th>#</th><th "
      "class=\"l\">Version</th><th class=\"l\">Owner</th><th>Elo ± 95%</th><th>Matches</th>"
      "<th>W</th><th>L</th><th>D</th><th class=\"l\">Last played</th><th class=\"l\">Status</th>"
      "</tr>";
  for (const RatingRow& r : b.rows)
    body += "<tr><td>" + std::to_string(r.rank) + "</td><td class=\"l\">" +
            bot_link(b.base, r.version) + "</td><td class=\"l\">" + user_link(b.base, r.user) +
            "</td><td>" + rating_text(r) + "</td><td>" + std::to_string(r.matches) + "</td><td>" +
            std::to_string(r.wins) + "</td><td>" + std::to_string(r.losses) + "</td><td>" +
            std::to_string(r.draws) + "</td><td class=\"l\">" + ago(r.last_played, b.now) +
            "</td><td class=\"l\">" + state_name(r.state) + "</td></tr>";
  body += "</table></div><p class=\"muted\">" + std::to_string(b.matches) +
          " matches. Elo: the Bradley-Terry fit of every ladder match (the standings' own), "
          "with its 95% interval.</p>";
  if (b.rows.empty()) body += "<p class=\"muted\">No rated version yet.</p>";
  if (!b.waiting.empty()) {
    body += "<h2>Being checked</h2><ul>";
    for (const Version& v : b.waiting)
      body += "<li>" + bot_link(b.base, v.name()) + " (" + user_link(b.base, v.user) + ")</li>";
    body += "</ul>";
  }
  return page("Ladder " + b.name, b.crumbs, body, /*live=*/true);
}

std::string rating_plot_svg(const std::vector<RatingSeries>& series) {
  double lo = 1e300, hi = -1e300;
  int64_t most = 0;
  for (const RatingSeries& s : series)
    for (const HistoryPoint& p : s.points) {
      lo = std::min(lo, p.elo - p.ci95);
      hi = std::max(hi, p.elo + p.ci95);
      most = std::max(most, p.matches);
    }
  if (most == 0) return "";
  if (hi - lo < 50) {
    lo -= 25;
    hi += 25;
  }
  constexpr double kW = 640, kH = 240, kLeft = 48, kBottom = 24, kTop = 8, kRight = 8;
  auto x = [&](double m) { return kLeft + (kW - kLeft - kRight) * m / static_cast<double>(most); };
  auto y = [&](double e) { return kTop + (kH - kTop - kBottom) * (hi - e) / (hi - lo); };
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return std::string(buf);
  };
  static constexpr const char* kColours[] = {"#f4b942", "#7df09a", "#8ab4ff",
                                             "#ff8a80", "#d59cff", "#9de0e0"};
  std::string svg =
      "<svg class=\"plot\" viewBox=\"0 0 640 240\" role=\"img\" aria-label=\"rating "
      "over matches\" xmlns=\"http://www.w3.org/2000/svg\">";
  svg += "<text x=\"4\" y=\"" + num(y(hi) + 10) + "\" fill=\"#9db5a7\" font-size=\"11\">" +
         fixed_text(hi, 0) + "</text><text x=\"4\" y=\"" + num(y(lo)) +
         "\" fill=\"#9db5a7\" font-size=\"11\">" + fixed_text(lo, 0) + "</text><text x=\"" +
         num(kW - 120) + "\" y=\"" + num(kH - 6) + "\" fill=\"#9db5a7\" font-size=\"11\">" +
         std::to_string(most) + " matches</text>";
  for (size_t i = 0; i < series.size(); ++i) {
    const RatingSeries& s = series[i];
    if (s.points.empty()) continue;
    const char* colour = kColours[i % std::size(kColours)];
    std::string band, upper, lower, line;
    for (const HistoryPoint& p : s.points) {
      const double m = static_cast<double>(p.matches);
      upper += num(x(m)) + "," + num(y(p.elo + p.ci95)) + " ";
      lower = num(x(m)) + "," + num(y(p.elo - p.ci95)) + " " + lower;
      line += num(x(m)) + "," + num(y(p.elo)) + " ";
    }
    svg += "<polygon points=\"" + upper + lower + "\" fill=\"" + colour +
           "\" fill-opacity=\"0.15\"/><polyline class=\"rating\" points=\"" + line +
           "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"><title>" +
           html_escape(s.version) + "</title></polyline>";
  }
  return svg + "</svg>";
}

std::string ladder_bot_page(const LadderBotPage& p) {
  std::string body = "<p>Owner " + user_link(p.base, p.user) + "</p>";
  const std::string plot = rating_plot_svg(p.series);
  body += "<h2>Rating over its matches</h2>" +
          (plot.empty() ? std::string("<p class=\"muted\">No rating point yet.</p>") : plot);
  if (!p.head_to_head.empty()) {
    body +=
        "<h2>Head to head</h2><div class=\"scroll\"><table id=\"head-to-head\"><tr><th "
        "class=\"l\">Against</th><th>W</th><th>L</th><th>D</th><th>Score</th></tr>";
    for (const auto& [other, h] : p.head_to_head)
      body += "<tr><td class=\"l\"><a href=\"" + p.base + "bot/" + html_escape(other) + "\">" +
              html_escape(other) + "</a></td><td>" + std::to_string(h.wins) + "</td><td>" +
              std::to_string(h.losses) + "</td><td>" + std::to_string(h.draws) + "</td><td>" +
              fixed_text(100.0 * (h.wins + 0.5 * h.draws) / std::max(1, h.games()), 0) +
              "%</td></tr>";
    body += "</table></div><p class=\"muted\">Pairwise games of every version of " +
            html_escape(p.bot) + ", counted as the standings count them.</p>";
  }
  for (const LadderVersionView& v : p.versions) {
    body +=
        "<h2 id=\"" + html_escape(v.version.name()) + "\">" + html_escape(v.version.name()) +
        " <span class=\"muted\">" + state_name(v.version.state) + ", " +
        std::to_string(v.version.matches) + " matches" +
        (v.rating ? ", Elo " + rating_text(*v.rating) + ", rank " + std::to_string(v.rating->rank)
                  : std::string()) +
        "</span></h2>";
    if (!v.recent.empty()) {
      body += "<ul class=\"matches\">";
      for (const LadderMatchLine& m : v.recent)
        body += "<li>" +
                (m.url.empty()
                     ? html_escape(m.text)
                     : "<a href=\"" + html_escape(m.url) + "\">" + html_escape(m.text) + "</a>") +
                "</li>";
      body += "</ul>";
    }
    body += "<details><summary>Its check-bot report</summary><pre>" +
            html_escape(v.version.report) + "</pre></details>";
  }
  return page(p.bot + " in " + p.ladder, p.crumbs, body, /*live=*/true);
}

std::string ladder_user_page(const std::string& ladder, const std::string& base,
                             const std::string& crumbs, const std::string& user,
                             const std::vector<std::string>& bots, bool own) {
  std::string body = "<h2>Bots</h2><ul>";
  for (const std::string& b : bots)
    body +=
        "<li><a href=\"" + base + "bot/" + html_escape(b) + "\">" + html_escape(b) + "</a></li>";
  body += "</ul>";
  if (bots.empty()) body += "<p class=\"muted\">No bot yet.</p>";
  if (own)
    body += "<p><a id=\"upload-link\" href=\"" + base +
            "upload\">Upload a version</a> of a bot of yours, or a new bot.</p>";
  return page(user + " in " + ladder, crumbs, body);
}

}  // namespace allfives::referee::serve
