// End-to-end tests of `referee replay --html`: the page's embedded data, and the page loaded in
// headless Chromium, checked step by step against the log's own records.
#include "log/match_log.h"
#include "replay_view/replay_view_util.h"

namespace allfives::e2e::replay_view {
namespace {

// ---------------------------------------------------------------------------------------
// The HTML page

std::string write_html(const Logged& l, const std::string& name,
                       std::vector<std::string> extra = {}) {
  const std::string path = temp_dir("html-" + name) + "/replay.html";
  std::vector<std::string> argv = {kReferee, "replay", l.path, "--html", path};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return path;
}

// The page's embedded data as a protobuf Struct (any JSON parses into one).
google::protobuf::Struct page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"replay-data\">";
  const size_t a = html.find(open);
  const size_t b = html.find("</script>", a);
  google::protobuf::Struct data;
  EXPECT_NE(a, std::string::npos);
  if (a == std::string::npos || b == std::string::npos) return data;
  const std::string json = html.substr(a + open.size(), b - a - open.size());
  const auto status = google::protobuf::util::JsonStringToMessage(json, &data);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return data;
}

TEST(ReplayHtml, OneSelfContainedCompactFile) {
  const Logged& l = logged("2p");
  const std::string html = read_file(write_html(l, "self"));
  ASSERT_FALSE(html.empty());
  for (const char* external : {"http://", "https://", " src=", "url(", "@import", "//cdn"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  // A link only to what it carries itself (the icon, so that the browser asks for none).
  for (size_t at = html.find("<link"); at != std::string::npos; at = html.find("<link", at + 1)) {
    const std::string tag = html.substr(at, html.find('>', at) - at);
    EXPECT_NE(tag.find(" href=\"data:"), std::string::npos) << tag;
  }
  EXPECT_NE(html.find("<svg"), std::string::npos);  // tiles are inline SVG, built by the page
  const auto data = page_data(html);
  const auto& page_steps = data.fields().at("steps").list_value();
  EXPECT_EQ(page_steps.values_size(), static_cast<int>(steps_of(l.records).size()));
  // Compact: the steps cost a few hundred bytes each.
  EXPECT_LT(html.size(), 40000 + 600 * static_cast<size_t>(page_steps.values_size()))
      << html.size();
}

// --no-output and --no-decisions leave out of the page what they hide in the terminal: what
// each bot printed (under its plays and under a fault), and with --no-decisions the decisions
// themselves; the steps stay.
TEST(ReplayHtml, NoOutputAndNoDecisionsLeaveThemOutOfThePage) {
  const std::string dir = temp_dir("html-no-output");
  for (const std::string mode : {"chatty", "crash"}) {
    SCOPED_TRACE(mode);
    Logged l;
    l.path = dir + "/" + mode + ".jsonl";
    const RunResult m = run({kReferee, "match", "--seed", "5", "--max-hands", "2", "--log", l.path,
                             kBadBot + " --mode " + mode + " --at 3", kRandom});
    ASSERT_EQ(m.exit_code, 0) << m.output;
    const std::string printed =
        mode == "chatty" ? "chatty: thinking about decision 1" : "crash: giving up at decision 3";
    const std::string all = read_file(write_html(l, mode + "-all"));
    ASSERT_NE(all.find(printed), std::string::npos);
    const std::string no_output = read_file(write_html(l, mode + "-no-output", {"--no-output"}));
    EXPECT_EQ(no_output.find(printed), std::string::npos);
    const std::string no_decisions =
        read_file(write_html(l, mode + "-no-decisions", {"--no-decisions"}));
    EXPECT_EQ(no_decisions.find(printed), std::string::npos);
    const auto data = page_data(no_decisions);
    EXPECT_FALSE(data.fields().at("match").struct_value().fields().at("decisions").bool_value());
    const auto& steps = data.fields().at("steps").list_value();
    const auto kept_data = page_data(no_output);
    const auto& kept = kept_data.fields().at("steps").list_value();
    ASSERT_EQ(steps.values_size(), kept.values_size());
    int plays = 0;
    for (int i = 0; i < steps.values_size(); ++i) {
      const auto& step = steps.values(i).struct_value().fields();
      EXPECT_EQ(step.count("y"), 0u) << "step " << i;
      if (step.at("k").string_value() != "p") continue;
      ++plays;
      const auto& y = kept.values(i).struct_value().fields().at("y").struct_value().fields();
      EXPECT_EQ(y.count("w"), 0u) << "step " << i;
      EXPECT_EQ(y.count("o"), 1u) << "step " << i;  // --no-output keeps the rest
    }
    EXPECT_GT(plays, 0);
  }
  const RunResult both = run({kReferee, "replay", dir + "/chatty.jsonl", "--html", dir + "/x.html",
                              "--no-decisions", "--only-missed"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("--only-missed"), std::string::npos) << both.output;
}

TEST(ReplayHtml, SeatViewCarriesNoHiddenHand) {
  const Logged& l = logged("partners");
  const std::vector<Step> steps = steps_of(l.records);
  for (int seat = 0; seat < 4; ++seat) {
    const std::string html =
        read_file(write_html(l, "seat" + std::to_string(seat), {"--seat", std::to_string(seat)}));
    const auto data = page_data(html);
    const auto& ps = data.fields().at("steps").list_value();
    ASSERT_EQ(ps.values_size(), static_cast<int>(steps.size()));
    for (int i = 0; i < ps.values_size(); ++i) {
      const auto& hands = ps.values(i).struct_value().fields().at("d").list_value();
      ASSERT_EQ(hands.values_size(), 4);
      for (int other = 0; other < 4; ++other) {
        const auto& h = hands.values(other);
        if (other == seat || steps[static_cast<size_t>(i)].revealed) {
          EXPECT_TRUE(h.has_string_value()) << "step " << i << " seat " << other;
        } else {
          ASSERT_TRUE(h.has_number_value()) << "step " << i << " hides seat " << other << "'s hand";
          EXPECT_EQ(static_cast<int>(h.number_value()),
                    steps[static_cast<size_t>(i)].hands[other].size());
        }
      }
      // The step's words never name a hidden tile either.
      TileSet hidden = steps[static_cast<size_t>(i)].boneyard;
      if (!steps[static_cast<size_t>(i)].revealed)
        for (int other = 0; other < 4; ++other)
          if (other != seat) hidden |= steps[static_cast<size_t>(i)].hands[other];
      std::string words = ps.values(i).struct_value().fields().at("t").string_value();
      if (ps.values(i).struct_value().fields().count("o"))
        for (const auto& note : ps.values(i).struct_value().fields().at("o").list_value().values())
          words += "\n" + note.string_value();
      for (Tile t : hidden) EXPECT_FALSE(names_tile(words, t)) << to_string(t) << " in " << words;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The page in a real browser: headless Chromium (Debian's `chromium`, installed by
// scripts/setup.sh).

std::string chromium_path() {
  if (const char* env = std::getenv("ALLFIVES_CHROMIUM")) return env;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::string p = dir + "/" + name;
      if (::access(p.c_str(), X_OK) == 0) return p;
    }
  return "";
}

#define REQUIRE_CHROMIUM(var)                                                            \
  const std::string var = chromium_path();                                               \
  ASSERT_FALSE(var.empty())                                                              \
      << "Debian's chromium is not installed, so the HTML replay cannot be tested: run " \
         "scripts/setup.sh (it installs it), or set ALLFIVES_CHROMIUM to a Chromium binary"

// Runs headless Chromium on `url` with extra flags; returns its standard output.
std::string chromium(const std::string& browser, const std::string& url,
                     const std::vector<std::string>& flags, int budget_ms = 3000) {
  static int count = 0;
  const std::string dir = temp_dir("chromium-" + std::to_string(++count));
  std::string command = quote(browser) +
                        " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                        " --disable-background-networking --disable-component-update"
                        " --disable-sync --no-first-run --no-default-browser-check"
                        " --hide-scrollbars --user-data-dir=" +
                        quote(dir + "/profile") +
                        " --virtual-time-budget=" + std::to_string(budget_ms);
  for (const auto& f : flags) {
    command += ' ';
    command += quote(f);
  }
  command += " " + quote(url) + " > " + quote(dir + "/stdout") + " 2> " + quote(dir + "/stderr");
  const RunResult r = sh(command, std::chrono::seconds(90));
  EXPECT_EQ(r.exit_code, 0) << command << "\n" << read_file(dir + "/stderr");
  return read_file(dir + "/stdout");
}

// The data attributes of #state in a dumped DOM.
std::map<std::string, std::string> page_state(const std::string& dom) {
  std::map<std::string, std::string> out;
  const size_t a = dom.find("<div id=\"state\"");
  if (a == std::string::npos) return out;
  const size_t b = dom.find('>', a);
  const std::string tag = dom.substr(a, b - a);
  for (size_t at = tag.find(" data-"); at != std::string::npos; at = tag.find(" data-", at + 1)) {
    const size_t eq = tag.find("=\"", at);
    const size_t end = tag.find('"', eq + 2);
    if (eq == std::string::npos || end == std::string::npos) break;
    std::string value = tag.substr(eq + 2, end - eq - 2);
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
      for (size_t p = value.find(from); p != std::string::npos; p = value.find(from, p + 1))
        value.replace(p, from.size(), to);
    out[tag.substr(at + 6, eq - at - 6)] = value;
  }
  return out;
}

std::string kind_name(v1::LogRecord::KindCase k) {
  switch (k) {
    case v1::LogRecord::kHandStart:
      return "hand_start";
    case v1::LogRecord::kPlay:
      return "play";
    case v1::LogRecord::kDraw:
      return "draw";
    case v1::LogRecord::kPass:
      return "pass";
    case v1::LogRecord::kHandEnd:
      return "hand_end";
    case v1::LogRecord::kFault:
      return "fault";
    case v1::LogRecord::kMatchEnd:
      return "match_end";
    default:
      return "?";
  }
}

// The page's state after step k agrees with the log.
void expect_state_matches(const std::map<std::string, std::string>& st,
                          const std::vector<Step>& steps, int k) {
  ASSERT_FALSE(st.empty()) << "no #state in the page";
  const Step& s = steps[static_cast<size_t>(k)];
  EXPECT_EQ(st.at("step"), std::to_string(k));
  EXPECT_EQ(st.at("steps"), std::to_string(steps.size()));
  EXPECT_EQ(st.at("log-line"), std::to_string(s.line));
  EXPECT_EQ(st.at("kind"), kind_name(s.kind));
  EXPECT_EQ(st.at("hand"), std::to_string(s.hand));
  EXPECT_EQ(st.at("play"), std::to_string(s.plays));
  EXPECT_EQ(st.at("scores"), join(s.scores, ","));
  EXPECT_EQ(st.at("boneyard"), std::to_string(s.boneyard.size()));
  EXPECT_EQ(st.at("count"), s.last_play ? std::to_string(s.last_play->count()) : "");
  EXPECT_EQ(st.at("points"), s.last_play ? std::to_string(s.last_play->points()) : "");
  if (s.last_play) {
    EXPECT_NE(st.at("last-play").find("count " + std::to_string(s.last_play->count())),
              std::string::npos);
  }
  // The line: this hand's played tiles, each touching its neighbour with equal halves.
  const std::string& line = st.at("line");
  ASSERT_EQ(line.size(), 2 * s.played.size()) << line;
  TileSet on_line, played;
  for (size_t i = 0; i + 1 < line.size(); i += 2) {
    on_line.add(Tile::of(line[i] - '0', line[i + 1] - '0'));
    if (i + 2 < line.size()) {
      EXPECT_EQ(line[i + 1], line[i + 2]) << "tiles do not join in " << line;
    }
  }
  for (Tile t : s.played) played.add(t);
  EXPECT_EQ(on_line, played) << line;
}

// Steps worth checking: the first, the first scoring play, a draw, a hand's end, the middle,
// the last.
std::vector<int> interesting_steps(const std::vector<Step>& steps) {
  std::vector<int> out = {0};
  auto first = [&](auto pred) {
    for (size_t i = 0; i < steps.size(); ++i)
      if (pred(steps[i])) return static_cast<int>(i);
    return -1;
  };
  for (int k : {first([](const Step& s) {
                  return s.last_play && s.kind == v1::LogRecord::kPlay && s.last_play->points() > 0;
                }),
                first([](const Step& s) { return s.kind == v1::LogRecord::kDraw; }),
                first([](const Step& s) { return s.kind == v1::LogRecord::kHandEnd; }),
                static_cast<int>(steps.size() / 2), static_cast<int>(steps.size()) - 1})
    if (k >= 0) out.push_back(k);
  return out;
}

TEST(ReplayBrowser, StateAfterGivenStepsMatchesTheLog) {
  REQUIRE_CHROMIUM(browser);
  for (const std::string format : {"2p", "partners"}) {
    SCOPED_TRACE(format);
    const Logged& l = logged(format);
    const std::vector<Step> steps = steps_of(l.records);
    const std::string url = "file://" + write_html(l, "browser-" + format);
    for (int k : interesting_steps(steps)) {
      SCOPED_TRACE("step " + std::to_string(k));
      const std::string dom = chromium(browser, url + "?step=" + std::to_string(k), {"--dump-dom"});
      EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos)
          << "the page's script did not finish";
      expect_state_matches(page_state(dom), steps, k);
    }
  }
}

// The page colours the seat labels the referee marked, never words that read like one: a
// fault's reason (which may quote a bot) naming another seat's label stays plain.
TEST(ReplayBrowser, SeatColoursComeFromTheMarksNotFromTheWords) {
  REQUIRE_CHROMIUM(browser);
  const Logged& fault = logged("fault");
  Logged l;
  l.path = temp_dir("marks-log") + "/m.jsonl";
  std::string text;
  int at = -1;
  for (size_t i = 0; i < fault.records.size(); ++i) {
    v1::LogRecord r = fault.records[i];
    if (r.has_fault()) {
      r.mutable_fault()->set_reason(r.fault().reason() + " (as seat 1 (random) said)");
      at = static_cast<int>(i) - 1;  // the header is no step
    }
    text += allfives::referee::to_json_line(r) + "\n";
  }
  ASSERT_GE(at, 0);
  std::ofstream(l.path, std::ios::binary) << text;
  const std::string url = "file://" + write_html(l, "marks") + "?step=" + std::to_string(at);
  const std::string dom = chromium(browser, url, {"--dump-dom"});
  ASSERT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "the page's script did not finish";
  const std::string event = dom.substr(dom.find("id=\"event\""), 2000);
  EXPECT_NE(event.find("<span class=\"s0\">seat 0 (bad)</span> commits a fault"), std::string::npos)
      << event;
  EXPECT_NE(event.find("(as seat 1 (random) said)"), std::string::npos) << event;
  EXPECT_EQ(event.find("<span class=\"s1\">"), std::string::npos) << event;
}

TEST(ReplayBrowser, ButtonsAndKeysStepThroughThePage) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  std::vector<int> starts;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].kind == v1::LogRecord::kHandStart) starts.push_back(static_cast<int>(i));
  ASSERT_GE(starts.size(), 3u);
  const std::string url = "file://" + write_html(l, "buttons");
  const int k = starts[1] + 2;  // two steps into hand 2
  struct Case {
    std::string query;
    int expect;
  };
  for (const Case& c : std::vector<Case>{
           {"?step=" + std::to_string(k) + "&click=next,next", k + 2},
           {"?step=" + std::to_string(k) + "&click=nextHand,prev", starts[2] - 1},
           {"?step=" + std::to_string(k) + "&click=prevHand", starts[1]},
           {"?step=" + std::to_string(k) + "&click=prevHand,prevHand", starts[0]},
           {"?step=" + std::to_string(k) + "&keys=ArrowDown,ArrowRight,ArrowRight,ArrowLeft",
            starts[2] + 1},
           {"?step=" + std::to_string(k) + "&keys=End", static_cast<int>(steps.size()) - 1},
           {"?hand=3", starts[2]},
       }) {
    SCOPED_TRACE(c.query);
    expect_state_matches(page_state(chromium(browser, url + c.query, {"--dump-dom"})), steps,
                         c.expect);
  }
}

TEST(ReplayBrowser, PlayAdvancesStepByStep) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  const std::string url = "file://" + write_html(l, "autoplay");
  // At 1× the page steps every 800 ms of (virtual) time.
  const auto st = page_state(chromium(browser, url + "?step=5&autoplay", {"--dump-dom"}, 4500));
  ASSERT_FALSE(st.empty());
  const int at = std::atoi(st.at("step").c_str());
  EXPECT_GE(at, 8);
  EXPECT_LE(at, 12);
  EXPECT_EQ(st.at("playing"), "1");
  expect_state_matches(st, steps, at);
}

TEST(ReplayBrowser, SavesAScreenshot) {
  REQUIRE_CHROMIUM(browser);
  const Logged& l = logged("2p");
  const std::vector<Step> steps = steps_of(l.records);
  const std::string url = "file://" + write_html(l, "screenshot");
  const std::string png = kArtifacts + "/replay.png";
  std::filesystem::remove(png);
  chromium(browser, url + "?step=" + std::to_string(steps.size() / 3),
           {"--screenshot=" + png, "--window-size=1280,800"});
  const std::string bytes = read_file(png);
  ASSERT_GT(bytes.size(), 10000u) << "no screenshot at " << png;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::cout << "screenshot: " << png << " (" << bytes.size() << " bytes)\n";
}

}  // namespace
}  // namespace allfives::e2e::replay_view
