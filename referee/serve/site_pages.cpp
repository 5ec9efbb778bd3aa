#include "serve/site_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>

#include "allfives/wire/convert.h"
#include "match/match_result.h"
#include "replay/frames.h"
#include "serve/http_text.h"
#include "serve/served_paths.h"
#include "tournament/standings.h"

namespace allfives::referee::serve {
namespace {

const char* kStyle = R"(<style>
:root{--bg:#0f2219;--panel:#132b20;--text:#eef3ef;--muted:#9db5a7;--accent:#f4b942;--good:#7df09a;--bad:#ff8a80}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--bg);color:var(--text)}
header{background:#0a1912;padding:10px 20px;display:flex;flex-wrap:wrap;gap:4px 16px;align-items:baseline}header h1{margin:0;font-size:18px;overflow-wrap:anywhere}
header a{color:var(--muted)}nav form{display:inline}nav button{font:inherit;background:none;border:0;color:var(--muted);text-decoration:underline;padding:0;cursor:pointer}main{padding:14px 20px;max-width:1200px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
h2{font-size:14px;text-transform:uppercase;letter-spacing:.6px;color:var(--muted);margin:22px 0 8px}
.scroll{overflow-x:auto;max-width:100%;border-radius:10px}
table{border-collapse:collapse;background:var(--panel);border-radius:10px;overflow:hidden}
th,td{padding:5px 10px;text-align:right;white-space:nowrap}th{color:var(--muted);font-weight:600;background:#0d2118}
td.l,th.l{text-align:left}td.wrap{white-space:normal;min-width:12em}tr:nth-child(even) td{background:rgba(255,255,255,.03)}
.muted{color:var(--muted)}.live{color:var(--good);font-weight:700}.fault{color:var(--bad)}.won{color:var(--good)}
.card{background:var(--panel);border-radius:10px;padding:10px 14px;margin:8px 0}
.seats a{margin-right:6px;font-size:12px}
#filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;margin:6px 0 10px}
#filters select{background:#1f4433;color:var(--text);border:0;border-radius:8px;padding:5px 8px;font:inherit}
#filters button{background:var(--accent);border:0;border-radius:8px;padding:5px 10px;font-weight:700}
.verdict{font-size:16px;font-weight:700;margin-bottom:4px}.verdict.h1{color:var(--good)}.verdict.h0{color:var(--bad)}
.meter{position:relative;height:10px;background:#0a1a12;border-radius:5px;margin:10px 0 4px;max-width:520px}
.meter i{position:absolute;top:-3px;width:4px;height:16px;background:var(--accent);border-radius:2px}
.meter .zero{position:absolute;top:0;width:1px;height:10px;background:var(--muted)}
.ends{display:flex;justify-content:space-between;max-width:520px;font-size:12px;color:var(--muted)}
@media (max-width:600px){main{padding:10px}header{padding:8px 10px}th,td{padding:4px 6px}}
</style>)";

// Replaces <main> with the page's newer version every 2 s while body data-live="1"; submits the
// filters when one is chosen.
const char* kLiveScript = R"(<script>
(function () {
  let n = 0;
  async function refresh() {
    try {
      const r = await fetch(location.href, { cache: "no-store" });
      if (r.ok) {
        const d = new DOMParser().parseFromString(await r.text(), "text/html");
        const m = d.querySelector("main");
        if (m) document.querySelector("main").innerHTML = m.innerHTML;
        document.body.dataset.live = d.body.dataset.live || "0";
        document.body.dataset.refreshes = ++n;
      }
    } catch (e) { /* the server is gone: try again */ }
    if (document.body.dataset.live === "1") setTimeout(refresh, 2000);
  }
  if (document.body.dataset.live === "1") setTimeout(refresh, 2000);
  // A filter applies as soon as it is chosen (no inline handler: the page's policy runs only
  // this script); the listener survives the refreshes that replace <main>.
  document.addEventListener("change", (e) => {
    if (e.target.form && e.target.form.id === "filters") e.target.form.submit();
  });
})();
</script>)";

std::string fixed(double v, int decimals) {
  return fixed_text(v, decimals);
}
std::string signed_fixed(double v, int decimals) {
  std::string s = fixed(v, decimals);
  return s[0] == '-' || s.find_first_not_of("0.") == std::string::npos ? s : "+" + s;
}
std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string table(const std::string& id, const std::string& rows) {
  return "<div class=\"scroll\"><table id=\"" + id + "\">" + rows + "</table></div>";
}

std::string standings_rows(const Standings& s) {
  std::string out =
      "<tr><th>Rank</th><th class=\"l\">Bot</th><th>Matches</th><th>W</th><th>L</th><th>D</th>"
      "<th>Forfeits</th><th>Pts for</th><th>Pts against</th><th>Elo</th></tr>";
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
  return out;
}

std::string forfeits_html(const Standings& s) {
  std::string out;
  for (const BotStanding& b : s.bots) {
    if (b.forfeits_total == 0) continue;
    out += "<div>" + html_escape(b.name) + ":";
    const char* sep = " ";
    for (int k = 0; k < static_cast<int>(b.forfeits.size()); ++k) {
      if (b.forfeits[k] == 0) continue;
      out += sep + describe(static_cast<v1::FaultKind>(k)) + " " + std::to_string(b.forfeits[k]);
      sep = ", ";
    }
    out += "</div>";
  }
  return out.empty() ? "" : "<h2>Forfeits by kind</h2><div class=\"card\">" + out + "</div>";
}

std::string head_to_head_html(const Standings& s) {
  if (s.bots.size() < 2) return "";
  std::string rows = "<tr><th></th><th class=\"l\"></th>";
  for (size_t j = 0; j < s.bots.size(); ++j) rows += "<th>" + std::to_string(j + 1) + "</th>";
  rows += "</tr>";
  for (size_t i = 0; i < s.bots.size(); ++i) {
    rows += "<tr><td>" + std::to_string(i + 1) + "</td><td class=\"l\">" +
            html_escape(s.bots[i].name) + "</td>";
    for (size_t j = 0; j < s.bots.size(); ++j) {
      const HeadToHead& h = s.cross[i][j];
      rows += "<td>" +
              (i == j      ? std::string("-")
               : h.games() ? std::to_string(h.wins) + "-" + std::to_string(h.losses) + "-" +
                                 std::to_string(h.draws)
                           : std::string(".")) +
              "</td>";
    }
    rows += "</tr>";
  }
  return "<h2>Head to head</h2><p class=\"muted\">Row against column, pairwise games: "
         "wins-losses-draws.</p>" +
         table("h2h", rows);
}

// As `referee standings` prints them (estimate_words): counts, Elo [95%], nElo ± 95%, LOS and
// the verdict; no interval nor LOS where there is none.
std::string pairings_html(const Standings& s) {
  if (s.pairings.empty()) return "";
  std::string rows =
      "<tr><th class=\"l\">Pairing</th><th>Samples</th><th>Counts</th><th>Elo [95%]</th>"
      "<th>nElo</th><th>LOS</th><th class=\"l\">Verdict</th></tr>";
  for (const PairingStats& p : s.pairings) {
    const EstimateWords w = estimate_words(p.estimate, p.pentanomial);
    rows += "<tr><td class=\"l\">" + html_escape(p.bot) + " vs " + html_escape(p.opponent) +
            "</td><td>" + std::to_string(p.estimate.samples) +
            (p.pentanomial ? " pairs" : " games") + "</td><td>" + pairing_counts_text(p) +
            "</td><td>" + w.elo + "</td><td>" + w.nelo + "</td><td>" + w.los +
            "</td><td class=\"l\">" + html_escape(w.verdict) + "</td></tr>";
  }
  return "<h2>Pairings</h2><p class=\"muted\">From the first bot's side: over mirrored pairs "
         "(the same deals, seats swapped) counted by pair score 0/½/1/1½/2, or over pairwise "
         "games (W-L-D); Elo with its 95% interval, normalized Elo ± 95%, likelihood of "
         "superiority. Below " +
         std::to_string(kMinSamplesForInterval) +
         " samples, or without spread, no interval is given.</p>" + table("pairings", rows);
}

std::string timing_html(const Standings& s) {
  std::string rows;
  for (const BotStanding& b : s.bots) {
    const DecisionTiming& t = b.timing;
    if (t.decisions == 0) continue;
    rows += "<tr><td class=\"l\">" + html_escape(b.name) + "</td><td>" +
            std::to_string(t.decisions) + "</td><td>" + fixed(t.mean_us() / 1000, 2) + "</td><td>" +
            fixed(t.quantile_us(0.5) / 1000, 2) + "</td><td>" +
            fixed(t.quantile_us(0.99) / 1000, 2) + "</td><td>" + fixed(t.max_us / 1000.0, 2) +
            "</td><td>" + std::to_string(t.max_bank_used_ms) + "</td><td>" +
            std::to_string(t.near_deadline) + "</td></tr>";
  }
  if (rows.empty()) return "";
  return "<h2>Decision times (ms)</h2><p class=\"muted\">Median and p99 to within 4.5%; most "
         "bank used: in one match; near deadline: decisions that took 90% or more of the move "
         "time plus the bank left.</p>" +
         table("timing",
               "<tr><th class=\"l\">Bot</th><th>Decisions</th><th>Mean</th><th>Median</th>"
               "<th>p99</th><th>Max</th><th>Most bank used</th><th>Near deadline</th></tr>" +
                   rows);
}

// One SPRT: the verdict (or that there is none yet), the question and its hypotheses, the LLR
// on a meter between its bounds and in the words of sprt_status, the pairs it counted.
std::string sprt_card(const SprtSummary& t) {
  const SprtParams& q = t.params;
  const SprtVerdictWords v = sprt_verdict_words(t);
  const bool running = t.state == SprtSummary::State::kRunning;
  const char* cls = t.state == SprtSummary::State::kAcceptH1   ? "h1"
                    : t.state == SprtSummary::State::kAcceptH0 ? "h0"
                                                               : "run";
  const double lo = q.lower_bound(), hi = q.upper_bound();
  const auto at = [&](double x) {
    return number("%.1f", 100 * std::clamp((x - lo) / (hi - lo), 0.0, 1.0));
  };
  const int64_t after = t.pairs.pairs() - t.pairs_at_end;
  const std::string late =
      !running && after > 0
          ? "<div class=\"muted\">" + std::to_string(after) + " more pair" +
                (after == 1 ? "" : "s") +
                " finished after the test ended, from matches already under way; LLR now " +
                number("%+.2f", t.llr) + "; the verdict stands.</div>"
          : "";
  const EstimateWords e = estimate_words(estimate(t.pairs), true);
  return "<div class=\"card sprt\" data-against=\"" + html_escape(t.against) + "\" data-llr=\"" +
         number("%.4f", t.llr) + "\" data-over=\"" + (running ? "0" : "1") +
         "\"><div class=\"verdict " + cls + "\">" +
         (running ? std::string("Running: no verdict yet") : html_escape(v.answer)) + "</div>" +
         (v.why.empty() ? "" : "<div class=\"muted\">" + html_escape(v.why) + "</div>") +
         "<div>Is " + html_escape(t.candidate) + " stronger than " + html_escape(t.against) +
         "? H0 nElo " + number("%g", q.elo0) + " against H1 nElo " + number("%g", q.elo1) + ", α " +
         number("%g", q.alpha) + ", β " + number("%g", q.beta) +
         (t.max_pairs ? ", at most " + std::to_string(t.max_pairs) + " pairs" : "") +
         "</div><div class=\"meter\" title=\"the LLR between its bounds\"><span class=\"zero\" "
         "style=\"left:" +
         at(0) + "%\"></span><i style=\"left:calc(" + at(t.llr) +
         "% - 2px)\"></i></div><div class=\"ends\"><span>H0 at " + number("%+.2f", lo) +
         "</span><span>H1 at " + number("%+.2f", hi) + "</span></div><div><b>" +
         html_escape(sprt_status(t)) + "</b></div><div>" + std::to_string(t.pairs.pairs()) +
         " pairs of " + html_escape(t.candidate) + " against " + html_escape(t.against) +
         " (pair scores 0/½/1/1½/2: " + pair_scores_text(t.pairs) + ") · nElo " + e.nelo +
         (e.los.empty() ? "" : " · LOS " + e.los) + "</div>" + late + "</div>";
}

// Every SPRT of the tournament, one card each; pairs against other bots are not part of one.
std::string sprt_html(const Standings& s) {
  if (s.sprt.empty()) return "";
  std::string cards;
  for (const SprtSummary& t : s.sprt) cards += sprt_card(t);
  return "<h2>SPRT</h2><div id=\"sprt\">" + cards + "</div>";
}

std::string fault_words(const MatchRow& m) {
  if (m.fault_seat < 0) return "";
  const std::string who = m.fault_seat < static_cast<int>(m.seats.size())
                              ? m.seats[static_cast<size_t>(m.fault_seat)] + " (seat " +
                                    std::to_string(m.fault_seat) + ")"
                              : "seat " + std::to_string(m.fault_seat);
  return "<span class=\"fault\">" + html_escape(who) + ": " + describe(m.fault_kind) +
         (m.fault_reason.empty() ? "" : " — " + html_escape(m.fault_reason)) + "</span>";
}

std::string seat_links(const MatchRow& m) {
  std::string out = "<span class=\"seats\">";
  for (size_t s = 0; s < m.seats.size(); ++s)
    out += "<a href=\"" + m.url + "?seat=" + std::to_string(s) + "\" title=\"the match as " +
           html_escape(m.seats[s]) + " saw it\">seat " + std::to_string(s) + "</a>";
  return out + "</span>";
}

std::string match_row_html(const MatchRow& m) {
  std::string seats;
  for (size_t k = 0; k < m.seats.size(); ++k) {
    if (k) seats += ", ";
    seats += html_escape(m.seats[k]);
  }
  std::string result;
  switch (m.status) {
    case MatchRow::Status::kPlaying:
      result = "<span class=\"live\">● playing now</span>";
      break;
    case MatchRow::Status::kUnfinished:
      result = "<span class=\"muted\">unfinished</span>";
      break;
    case MatchRow::Status::kNotALog:
      result = "<span class=\"muted\">not a match log</span>";
      break;
    case MatchRow::Status::kFinished:
      result = "<span class=\"" + std::string(m.winner_side >= 0 ? "won" : "muted") + "\">" +
               html_escape(result_words(m)) + "</span>";
      break;
  }
  // A log the index names that is not in the folder (or leads out of it): no links.
  const std::string name = m.url.empty()
                               ? html_escape(m.name) + " <span class=\"muted\">(no log)</span>"
                               : "<a href=\"" + m.url + "\">" + html_escape(m.name) + "</a>";
  return "<tr data-bots=\"" + html_escape(seats) + "\"><td class=\"l\">" + name +
         "</td><td class=\"l\">" + seats + "</td><td class=\"l\">" + result + "</td><td>" +
         (m.status == MatchRow::Status::kFinished ? std::to_string(m.hands) : "") +
         "</td><td class=\"l wrap\">" + fault_words(m) + "</td><td class=\"l\">" +
         (m.url.empty() ? std::string()
          : m.too_large.empty()
              ? seat_links(m)
              : "<span class=\"muted\">too large to draw (" + html_escape(m.too_large) +
                    ")</span> <a href=\"" + m.log_url + "\">the log</a>") +
         "</td></tr>";
}

// The filter form: a bot, a fault; works without script (a GET form), submits on change.
std::string filters_html(const std::set<std::string>& bots, const std::set<v1::FaultKind>& kinds,
                         const MatchFilter& f) {
  const auto option = [](const std::string& value, const std::string& label, bool selected) {
    return "<option value=\"" + html_escape(value) + "\"" + (selected ? " selected" : "") + ">" +
           html_escape(label) + "</option>";
  };
  std::string out = "<form id=\"filters\" method=\"get\"><label>Bot <select name=\"bot\">" +
                    option("", "every bot", f.bot.empty());
  for (const std::string& b : bots) out += option(b, b, f.bot == b);
  out += "</select></label><label>Faults <select name=\"fault\">" +
         option("", "all matches", f.fault.empty()) +
         option("any", "with a fault", f.fault == "any") +
         option("none", "without a fault", f.fault == "none");
  for (const v1::FaultKind k : kinds)
    out += option(describe(k), describe(k), f.fault == describe(k));
  return out + "</select></label><noscript><button>Show</button></noscript></form>";
}

// "?page=N" with the filter kept.
std::string page_url(const MatchFilter& f, size_t page) {
  std::string q = "?page=" + std::to_string(page);
  // A path's encoding leaves '/' alone, which a query may hold too.
  if (!f.bot.empty()) q += "&amp;bot=" + url_encode_path(f.bot);
  if (!f.fault.empty()) q += "&amp;fault=" + url_encode_path(f.fault);
  return q;
}

// "Matches 201–400 · page 2 of 750 · previous · next", when there is more than a page.
std::string pages_html(const TournamentPage& p) {
  const size_t pages = std::max<size_t>(1, (p.shown + kMatchesPerPage - 1) / kMatchesPerPage);
  if (pages == 1 && p.page == 1) return "";
  const size_t first = (p.page - 1) * kMatchesPerPage + 1;
  std::string out = "<p class=\"muted\" id=\"pages\">";
  if (p.matches.empty())
    out += "No matches on page " + std::to_string(p.page) + " of " + std::to_string(pages);
  else
    out += "Matches " + std::to_string(first) + "–" + std::to_string(first + p.matches.size() - 1) +
           " · page " + std::to_string(p.page) + " of " + std::to_string(pages);
  if (p.page > 1)
    out += " · <a id=\"previous\" href=\"" + page_url(p.filter, std::min(p.page - 1, pages)) +
           "\">previous</a>";
  if (p.page < pages)
    out += " · <a id=\"next\" href=\"" + page_url(p.filter, p.page + 1) + "\">next</a>";
  return out + "</p>";
}

std::string matches_html(const TournamentPage& p) {
  std::string rows =
      "<tr><th class=\"l\">Match</th><th class=\"l\">Seats</th><th class=\"l\">Result</th>"
      "<th>Hands</th><th class=\"l\">Fault</th><th class=\"l\">Views</th></tr>";
  for (const MatchRow& m : p.matches) rows += match_row_html(m);
  const bool filtered = !p.filter.bot.empty() || !p.filter.fault.empty();
  return "<h2>Matches</h2>" + filters_html(p.bots, p.kinds, p.filter) +
         "<p class=\"muted\" id=\"shown\">" +
         (filtered ? "Showing " + std::to_string(p.shown) + " of " : std::string()) +
         std::to_string(p.listed) + " match" + (p.listed == 1 ? "" : "es") +
         (filtered ? " · <a href=\"?\">show all</a>" : "") + "</p>" + pages_html(p) +
         table("matches", rows);
}

}  // namespace

bool MatchFilter::shows(const MatchRow& row) const {
  if (!bot.empty() && std::find(row.seats.begin(), row.seats.end(), bot) == row.seats.end())
    return false;
  if (fault.empty()) return true;
  if (fault == "any") return row.fault_seat >= 0;
  if (fault == "none") return row.fault_seat < 0;
  return row.fault_seat >= 0 && describe(row.fault_kind) == fault;
}

std::string side_name(v1::Format format, const std::vector<std::string>& seats, int side) {
  const auto seat = [&](int s) {
    return s < static_cast<int>(seats.size()) ? seats[static_cast<size_t>(s)]
                                              : "seat " + std::to_string(s);
  };
  Format core;
  if (!wire::from_proto(format, core, nullptr) || partner_of(core, side) < 0) return seat(side);
  const std::string a = seat(side), b = seat(partner_of(core, side));
  return a == b ? a : a + " + " + b;
}

std::string result_words(const MatchRow& m) {
  std::string scores;
  for (size_t i = 0; i < m.scores.size(); ++i)
    scores += (i ? "–" : "") + std::to_string(m.scores[i]);
  if (m.reason == v1::MATCH_END_REASON_ABORTED) return "aborted at " + scores;
  if (m.winner_side < 0) return "a draw " + scores;
  return side_name(m.format, m.seats, m.winner_side) + " won " + scores;
}

std::string page(const std::string& title, const std::string& crumbs, const std::string& body,
                 bool live, const std::string& head_extra) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
         "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><link rel=\"icon\" "
         "href=\"data:,\"><title>" +
         html_escape(title) + "</title>" + kStyle + head_extra + "</head><body data-live=\"" +
         (live ? "1" : "0") + "\"><header><h1>" + html_escape(title) + "</h1>" + crumbs +
         "</header><main>" + body + "</main>" + kLiveScript + "</body></html>\n";
}

namespace {

// "2026-12-06 08:40 UTC".
std::string when_text(int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// "greedy, heavy, random" (at most 5, then "and N more").
std::string bots_text(const std::vector<std::string>& bots) {
  std::string out;
  for (size_t i = 0; i < bots.size() && i < 5; ++i) out += (i ? ", " : "") + bots[i];
  if (bots.size() > 5) out += " and " + std::to_string(bots.size() - 5) + " more";
  return out;
}

std::string state_cell(const FolderRow& f) {
  const std::string of = f.finished
                             ? std::to_string(*f.finished) +
                                   (f.planned ? " of " + std::to_string(f.planned) : std::string())
                             : std::string();
  switch (f.state) {
    case FolderRow::State::kRunning:
      return "<span class=\"live\">● running</span> " + of +
             (f.playing ? " · " + std::to_string(f.playing) + " playing now" : std::string());
    case FolderRow::State::kFinished:
      return "finished, " + of;
    case FolderRow::State::kInterrupted:
      return "<span class=\"fault\">stopped at " + of +
             "</span><br><span class=\"muted\">continue: referee tournament FILE --resume --out " +
             html_escape(f.name) + "</span>";
    case FolderRow::State::kNone:
      break;
  }
  return "<span class=\"muted\">loose logs</span>";
}

}  // namespace

std::string folders_page(const std::vector<FolderRow>& rows) {
  std::string body =
      "<h2>Tournaments and match folders</h2><div class=\"scroll\"><table id=\"folders\"><tr><th "
      "class=\"l\">Folder</th><th class=\"l\">Bots</th><th>Matches logged</th><th "
      "class=\"l\">State</th><th class=\"l\">Verdict</th><th class=\"l\">Last change</th></tr>";
  bool live = false;
  for (const FolderRow& f : rows) {
    live = live || f.playing > 0 || f.state == FolderRow::State::kRunning;
    const std::string title = f.title.empty() || f.name.starts_with("ladder ")
                                  ? html_escape(f.name)
                                  : "<strong>" + html_escape(f.title) +
                                        "</strong> <span class=\"muted\">" + html_escape(f.name) +
                                        "</span>";
    body += "<tr><td class=\"l\"><a href=\"" + f.url + "\">" + title +
            "</a></td><td class=\"l wrap\">" + html_escape(bots_text(f.bots)) + "</td><td>" +
            std::to_string(f.logs) + "</td><td class=\"l\">" +
            (!f.finished && f.tournament ? std::string("index unreadable") : state_cell(f)) +
            "</td><td class=\"l wrap\">" + html_escape(f.verdict) + "</td><td class=\"l\">" +
            (f.updated ? when_text(f.updated) : std::string()) + "</td></tr>";
  }
  body += "</table></div>";
  if (rows.empty())
    body +=
        "<p class=\"muted\">No tournament output or match log under the served folders "
        "yet.</p>";
  return page("All Fives arena", "", body, live);
}

std::string tournament_page(const TournamentPage& p) {
  std::string body;
  const int playing = p.playing;
  if (p.has_index && p.standings) {
    const Standings& s = *p.standings;
    body +=
        "<p class=\"muted\">" + html_escape(format_words(s.format)) + " · " +
        std::to_string(s.matches) + " finished match" + (s.matches == 1 ? "" : "es") +
        (playing ? " · <span class=\"live\">● " + std::to_string(playing) + " playing now</span>"
                 : "") +
        " · <a href=\"" + p.standings_url + "\">standings as JSON</a></p>";
    body += sprt_html(s);
    if (!s.bots.empty())
      body += "<h2>Standings</h2>" + table("standings", standings_rows(s)) + forfeits_html(s) +
              head_to_head_html(s) + pairings_html(s) + timing_html(s);
    if (const std::string differ = why_verdicts_may_differ(s); !differ.empty())
      body += "<p class=\"muted\" id=\"differ\">" + html_escape(differ) + "</p>";
    for (const std::string& note : s.notes)
      body += "<p class=\"muted\">" + html_escape(note) + "</p>";
  } else {
    body +=
        "<p class=\"muted\">" + std::to_string(p.listed) + " match log" +
        (p.listed == 1 ? "" : "s") +
        (playing ? " · <span class=\"live\">● " + std::to_string(playing) + " playing now</span>"
                 : "") +
        " · no tournament index here, so no standings</p>";
  }
  body += matches_html(p);
  return page(p.title, p.crumbs, body, p.live || playing > 0);
}

}  // namespace allfives::referee::serve
