// End-to-end tests of `referee serve` over plain sockets: the real referee binary serves folders
// written by real tournaments and matches between the sample bots (the human seat's own tests:
// human_seat_test.cpp).
// What the pages say is checked against `referee standings` and the logs themselves.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "allfives/core/types.h"
#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

// A small tournament with a forfeiting bot, played once per test program.
const std::string& tournament_dir() {
  static std::string out;
  if (!out.empty()) return out;
  const std::string dir = temp_dir("serve-tournament");
  std::ofstream(dir + "/t.txtpb") << "name: \"served\"\nformat: FORMAT_TWO_PLAYERS\n"
                                  << "bots { name: \"greedy\" command: \"" << kGreedy << "\" }\n"
                                  << "bots { name: \"random\" command: \"" << kRandom << "\" }\n"
                                  << "bots { name: \"cheat\" command: \"" << kBadBot
                                  << "\" args: \"--mode\" args: \"illegal\" args: \"--at\" args: "
                                     "\"40\" }\n"
                                  << "matches_per_pairing: 4\nseed: 11\n";
  const RunResult r =
      run({kReferee, "tournament", dir + "/t.txtpb", "--out", dir + "/out", "-j", "2"}, 120s);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  out = dir + "/out";
  return out;
}

// `referee serve ARGS --listen 127.0.0.1:0`, its port read from what it prints.
ServeProcess serve(std::vector<std::string> args) {
  ServeProcess s = start_serve(kReferee, std::move(args));
  EXPECT_GT(s.port, 0) << s.child->output();
  return s;
}

TEST(ServeTest, TournamentPageShowsTheSameStandingsAsTheStandingsCommand) {
  const std::string dir = tournament_dir();
  const RunResult text = run({kReferee, "standings", dir});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  // The text table: the header line starts with "Rank", rows follow until a blank line.
  std::vector<std::vector<std::string>> expected;
  std::istringstream lines(text.output);
  std::string line;
  bool in_table = false, in_h2h = false;
  std::vector<std::vector<std::string>> expected_h2h;
  while (std::getline(lines, line)) {
    if (line.rfind("Rank", 0) == 0) in_table = true;
    if (line.rfind("Head to head", 0) == 0) {
      in_h2h = true;
      continue;
    }
    if (line.empty()) {
      in_table = false;
      in_h2h = false;
    }
    if (in_table) expected.push_back(split_columns(line));
    if (in_h2h) expected_h2h.push_back(split_columns(line));
  }
  ASSERT_EQ(expected.size(), 4u) << text.output;  // header and three bots

  ServeProcess s = serve({dir});
  const HttpReply page = http_get(s.port, "/t/0/");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
  const auto table = html_table(page.body, "standings");
  ASSERT_EQ(table.size(), expected.size()) << page.body;
  for (size_t i = 0; i < table.size(); ++i) EXPECT_EQ(table[i], expected[i]) << "row " << i;
  // The head-to-head table: the text's rows (a blank corner is dropped by the splitting).
  auto h2h = html_table(page.body, "h2h");
  ASSERT_EQ(h2h.size(), expected_h2h.size());
  for (size_t i = 1; i < h2h.size(); ++i) EXPECT_EQ(h2h[i], expected_h2h[i]) << "h2h row " << i;
  // The forfeits are on the page, and every match of the index is listed with its replay.
  EXPECT_NE(page.body.find("illegal_play"), std::string::npos);
  const auto matches = html_table(page.body, "matches");
  EXPECT_EQ(matches.size(), 1u + 12u);  // header + 3 pairings x 4
  const HttpReply listing = http_get(s.port, "/");
  EXPECT_NE(listing.body.find("href=\"/t/0/\""), std::string::npos) << listing.body;
}

// A folder of many matches is listed a page at a time (each page reads its own lines of the
// index): the logs the index lacks first, then the index's matches in its order; an index line
// whose log is not there is listed without links.
TEST(ServeTest, TheMatchListIsPaged) {
  const std::string dir = temp_dir("serve-paged") + "/out";
  std::filesystem::copy(tournament_dir(), dir, std::filesystem::copy_options::recursive);
  std::vector<std::string> lines;
  {
    std::ifstream in(dir + "/index.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 12u);
  {
    // 12 real lines, then 438 more whose logs are gone: 450 finished matches.
    std::ofstream out(dir + "/index.jsonl", std::ios::trunc);
    for (size_t i = 0; i < 450; ++i) {
      std::string line = lines[i % 12];
      if (i >= 12) {
        const std::regex file("\"log_file\":\"matches/[^\"]+\"");
        line = std::regex_replace(line, file,
                                  "\"log_file\":\"matches/gone-" + std::to_string(i) + ".jsonl\"");
      }
      out << line << "\n";
    }
  }
  std::filesystem::copy_file(
      dir + "/matches/" +
          std::filesystem::directory_iterator(dir + "/matches")->path().filename().string(),
      dir + "/matches/extra.jsonl");
  ServeProcess s = serve({dir});
  const HttpReply first = http_get(s.port, "/t/0/");
  ASSERT_EQ(first.status, 200) << first.body;
  const auto rows = html_table(first.body, "matches");
  ASSERT_EQ(rows.size(), 1u + 200u);
  EXPECT_EQ(rows[1][0], "extra");  // the log the index does not hold comes first
  EXPECT_NE(first.body.find("451 matches"), std::string::npos);
  EXPECT_NE(first.body.find("page 1 of 3"), std::string::npos);
  EXPECT_NE(first.body.find("href=\"?page=2\""), std::string::npos);
  EXPECT_NE(first.body.find("450 finished matches"), std::string::npos);
  const HttpReply last = http_get(s.port, "/t/0/?page=3");
  ASSERT_EQ(last.status, 200) << last.body;
  const auto last_rows = html_table(last.body, "matches");
  ASSERT_EQ(last_rows.size(), 1u + 51u);
  EXPECT_EQ(last_rows.back()[0], "gone-449 (no log)");
  EXPECT_EQ(last.body.find("/m/0/matches/gone-"), std::string::npos);
  EXPECT_NE(last.body.find("href=\"?page=2\""), std::string::npos);
  // A filter pages what it shows: one bot's matches.
  const HttpReply greedy = http_get(s.port, "/t/0/?bot=greedy&page=2");
  ASSERT_EQ(greedy.status, 200) << greedy.body;
  std::smatch shown;
  ASSERT_TRUE(std::regex_search(greedy.body, shown, std::regex("Showing (\\d+) of 451 matches")))
      << greedy.body;
  const size_t n = std::stoul(shown[1]);
  EXPECT_GT(n, 200u);
  EXPECT_LT(n, 400u);
  const auto greedy_rows = html_table(greedy.body, "matches");
  ASSERT_EQ(greedy_rows.size(), 1u + std::min<size_t>(200, n - 200));
  for (size_t i = 1; i < greedy_rows.size(); ++i)
    EXPECT_NE(greedy_rows[i][1].find("greedy"), std::string::npos) << i;
  EXPECT_NE(greedy.body.find("href=\"?page=1&amp;bot=greedy\""), std::string::npos);
  EXPECT_EQ(http_get(s.port, "/t/0/?page=0").status, 400);
  EXPECT_EQ(http_get(s.port, "/t/0/?page=x").status, 400);
}

// A filtered page counts the index's lines from what was kept when that version of the index
// (its size and modification time) was first read, and reads only its own lines: the index is
// rewritten in place here, the same size, its time put back, with no line naming greedy any
// more; the count still comes from the version first read, while the rows shown are read anew.
// Lines appended make a new version of which only those lines are read; another file put in
// its place is read whole.
TEST(ServeTest, AFilteredPageReadsOnlyItsOwnLinesAndANewVersionOnlyItsNewLines) {
  const std::string dir = temp_dir("serve-filtered") + "/out";
  std::filesystem::copy(tournament_dir(), dir, std::filesystem::copy_options::recursive);
  const std::string index = dir + "/index.jsonl";
  ServeProcess s = serve({dir});
  const auto shown = [&](const std::string& target) {
    const HttpReply page = http_get(s.port, target);
    EXPECT_EQ(page.status, 200) << page.body;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(page.body, m, std::regex("Showing (\\d+) of \\d+ matches")))
        << page.body;
    return m.size() > 1 ? std::stoi(m[1]) : -1;
  };
  const int greedy = shown("/t/0/?bot=greedy");
  ASSERT_GT(greedy, 0);
  std::string text;
  {
    std::ifstream in(index, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto written = std::filesystem::last_write_time(index);
  const std::string renamed = std::regex_replace(text, std::regex("\"greedy\""), "\"GREEDY\"");
  ASSERT_NE(renamed, text);
  ASSERT_EQ(renamed.size(), text.size());
  {
    std::fstream out(index, std::ios::binary | std::ios::in | std::ios::out);
    out.write(renamed.data(), static_cast<std::streamsize>(renamed.size()));
  }
  std::filesystem::last_write_time(index, written);
  EXPECT_EQ(shown("/t/0/?bot=greedy"), greedy);
  const HttpReply page = http_get(s.port, "/t/0/?bot=greedy");
  EXPECT_NE(page.body.find("GREEDY"), std::string::npos);  // the rows: their lines read anew
  const std::string greedy_line = text.substr(0, text.find('\n') + 1);
  ASSERT_NE(greedy_line.find("\"greedy\""), std::string::npos);
  { std::ofstream(index, std::ios::binary | std::ios::app) << greedy_line; }
  EXPECT_EQ(shown("/t/0/?bot=greedy"), greedy + 1);
  {
    std::ofstream(index + ".new", std::ios::binary) << renamed;
    std::filesystem::rename(index + ".new", index);
  }
  EXPECT_EQ(shown("/t/0/?bot=greedy"), 0);
}

TEST(ServeTest, EveryMatchOpensItsReplayAndEachSeatsView) {
  const std::string dir = tournament_dir();
  ServeProcess s = serve({dir});
  const HttpReply page = http_get(s.port, "/t/0/");
  const std::regex link("href=\"(/m/0/matches/[^\"?]+\\.jsonl)\"");
  std::set<std::string> urls;
  for (auto it = std::sregex_iterator(page.body.begin(), page.body.end(), link);
       it != std::sregex_iterator(); ++it)
    urls.insert((*it)[1]);
  ASSERT_EQ(urls.size(), 12u);
  for (const std::string& url : urls) {
    const HttpReply all = http_get(s.port, url);
    ASSERT_EQ(all.status, 200) << url;
    EXPECT_NE(all.body.find("id=\"replay-data\""), std::string::npos);
    EXPECT_NE(all.body.find("\"viewer\":-1"), std::string::npos);
    const HttpReply seat1 = http_get(s.port, url + "?seat=1");
    ASSERT_EQ(seat1.status, 200);
    EXPECT_NE(seat1.body.find("\"viewer\":1"), std::string::npos);
    EXPECT_EQ(http_get(s.port, url + "?seat=2").status, 400);  // a 2-player match
    EXPECT_EQ(http_get(s.port, url + "?seat=x").status, 400);
  }
  // The page is the replay `referee replay --html` writes, byte for byte, but for the address
  // its "review this match" asks (a finished match without a review).
  const std::string one = *urls.begin();
  const std::string log = dir + one.substr(std::string("/m/0").size());
  const std::string html = temp_dir("serve-html") + "/r.html";
  ASSERT_EQ(run({kReferee, "replay", log, "--seat", "1", "--html", html}).exit_code, 0);
  std::string served = http_get(s.port, one + "?seat=1").body;
  const std::string action = ",\"reviewUrl\":\"/review" + one.substr(2) + "\"";
  ASSERT_NE(served.find(action), std::string::npos) << action;
  served.erase(served.find(action), action.size());
  EXPECT_EQ(served, read_file(html));
  // The raw log.
  const HttpReply raw = http_get(s.port, "/log/0" + one.substr(4));
  EXPECT_EQ(raw.status, 200);
  EXPECT_EQ(raw.headers.at("content-type"), "application/x-ndjson; charset=utf-8");
  EXPECT_EQ(raw.body, read_file(log));
}

TEST(ServeTest, NoUrlReachesAFileOutsideTheServedFolders) {
  const std::string base = temp_dir("serve-paths");
  const std::string served = base + "/served";
  std::filesystem::create_directories(served + "/matches");
  std::filesystem::create_directories(base + "/secret/matches");
  const std::string secret = "SECRET-" + std::to_string(::getpid());
  std::ofstream(base + "/secret.jsonl") << secret << "\n";
  std::ofstream(base + "/secret/matches/x.jsonl") << secret << "\n";
  std::ofstream(served + "/matches/ok.jsonl") << "not a log\n";
  std::filesystem::create_symlink(base + "/secret.jsonl", served + "/matches/link.jsonl");
  std::filesystem::create_symlink(base + "/secret", served + "/linkdir");
  ServeProcess s = serve({served});
  // The served file itself is reachable (so the refusals below are not a broken server).
  EXPECT_EQ(http_get(s.port, "/log/0/matches/ok.jsonl").status, 200);
  const std::vector<std::string> attacks = {
      "/log/0/../secret.jsonl",
      "/log/0/matches/../../secret.jsonl",
      "/log/0/%2e%2e/secret.jsonl",
      "/log/0/%2E%2E/secret.jsonl",
      "/log/0/matches/%2e%2e%2f%2e%2e%2fsecret.jsonl",
      "/log/0/..%2fsecret.jsonl",
      "/log/0/matches/..%5c..%5csecret.jsonl",
      "/log/0//" + base.substr(1) + "/secret.jsonl",
      "/log/0/%2f" + base.substr(1) + "/secret.jsonl",
      "/log/0/matches/link.jsonl",
      "/log/0/linkdir/matches/x.jsonl",
      "/m/0/matches/link.jsonl",
      "/m/0/linkdir/matches/x.jsonl",
      "/live/0/matches/link.jsonl?from=0",
      "/t/0/linkdir/",
      "/t/0/../",
      "/log/0/matches/ok.jsonl%00.jsonl",
      "/log/1/matches/ok.jsonl",
      "/log/-1/matches/ok.jsonl",
      "/log/00000000000/matches/ok.jsonl",
  };
  for (const std::string& a : attacks) {
    HttpReply r = http_get(s.port, a);
    EXPECT_GE(r.status, 400) << a;
    EXPECT_LT(r.status, 500) << a;
    EXPECT_EQ(r.body.find(secret), std::string::npos) << a;
    EXPECT_FALSE(r.headers["content-type"].empty()) << a;
  }
  // The folder listing does not follow the link out either.
  EXPECT_EQ(http_get(s.port, "/").body.find("linkdir"), std::string::npos);
}

TEST(ServeTest, BadRequestsGetClientErrorsAndTheServerKeepsServing) {
  ServeProcess s = serve({tournament_dir()});
  const std::vector<std::pair<std::string, int>> requests = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(100000, 'a') + "\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n", 413},
      {"DELETE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 405},
      {"GET /t/0/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 400},
      {"GET /live/0/matches/x.jsonl?from=abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: "
       "close\r\n\r\n",
       404},
      {"GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 404},
      {"GET /t/99999/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 404},
      {"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 400},  // HTTP/1.1 needs a Host
      {"GET / HTTP/1.0\r\n\r\n", 200},                       // HTTP/1.0 may omit it
  };
  for (const auto& [raw, status] : requests) {
    HttpReply r = http_raw(s.port, raw, 5s);
    EXPECT_EQ(r.status, status) << raw.substr(0, 60);
    EXPECT_FALSE(r.headers["content-type"].empty()) << raw.substr(0, 60);
  }
  // A live stream's bad step number, on a real log.
  const HttpReply page = http_get(s.port, "/t/0/");
  const std::string url = between(page.body, "href=\"/m/0/", "\"");
  EXPECT_EQ(http_get(s.port, "/live/0/" + url + "?from=abc").status, 400);
  // A client that connects and leaves mid-request, then a normal request.
  http_raw(s.port, "GET /t/0/ HTTP/1.1\r\nHo", 200ms);
  EXPECT_EQ(http_get(s.port, "/").status, 200);
  EXPECT_TRUE(s.child->running());
  EXPECT_EQ(s.child->interrupt(), 0);
}

// Parses a JSON document into a Struct (fails the test if it is not JSON).
google::protobuf::Struct json(const std::string& text) {
  google::protobuf::Struct s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &s).ok()) << text.substr(0, 200);
  return s;
}

TEST(ServeTest, AnEmptyLogIsAMatchWhoseBotsAreStarting) {
  // `referee match` makes its log before it starts the bots (so their sandboxes can cover it)
  // and writes the header once they answer.
  const std::string dir = temp_dir("serve-starting");
  std::ofstream(dir + "/starting.jsonl");
  ServeProcess s = serve({dir});
  const HttpReply listing = http_get(s.port, "/t/0/");
  EXPECT_NE(listing.body.find("playing now"), std::string::npos) << listing.body;
  EXPECT_EQ(listing.body.find("not a match log"), std::string::npos) << listing.body;
  // A folder of loose logs has no index: no standings, and it says so.
  EXPECT_NE(listing.body.find("no tournament index here"), std::string::npos) << listing.body;
  EXPECT_EQ(listing.body.find("mixed formats"), std::string::npos) << listing.body;
  EXPECT_EQ(listing.body.find("0 finished"), std::string::npos) << listing.body;
  const HttpReply page = http_get(s.port, "/m/0/" + between(listing.body, "href=\"/m/0/", "\""));
  EXPECT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("Waiting for the first hand"), std::string::npos) << page.body;
  EXPECT_EQ(s.child->interrupt(), 0);
}

// "Review this match": a POST starts the review of a finished match in the background, GET
// follows its progress to the end, and the replay page then carries the review; the review
// file is never listed as a log, a match not over is not reviewed, and a POST from another
// site's page is refused.
TEST(ServeTest, AFinishedMatchIsReviewedWhenAsked) {
  const std::string dir = temp_dir("serve-review");
  const std::string log = dir + "/m.jsonl";
  const RunResult m = run({kReferee, "match", "--seed", "21", "--log", log, "--no-sandbox",
                           "greedy=" + kGreedy, "random=" + kRandom});
  ASSERT_EQ(m.exit_code, 0) << m.output;
  // The same match without its end: as a match still being played looks.
  {
    std::istringstream lines(read_file(log));
    std::ofstream cut(dir + "/cut.jsonl");
    for (std::string line; std::getline(lines, line);)
      if (line.find("\"match_end\"") == std::string::npos &&
          line.find("\"bot_output\"") == std::string::npos)
        cut << line << "\n";
  }
  ServeProcess s = serve({dir});
  EXPECT_NE(http_get(s.port, "/m/0/m.jsonl").body.find("\"reviewUrl\":\"/review/0/m.jsonl\""),
            std::string::npos);
  EXPECT_EQ(http_get(s.port, "/m/0/cut.jsonl").body.find("\"reviewUrl\":"), std::string::npos);
  EXPECT_NE(http_get(s.port, "/review/0/m.jsonl").body.find("\"state\":\"none\""),
            std::string::npos);
  const HttpReply cut = http_post(s.port, "/review/0/cut.jsonl", "");
  EXPECT_EQ(cut.status, 409) << cut.body;
  EXPECT_NE(cut.body.find("not over"), std::string::npos) << cut.body;
  const HttpReply foreign = http_raw(
      s.port, "POST /review/0/m.jsonl HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(s.port) +
                  "\r\nOrigin: http://elsewhere.example\r\nContent-Length: 0\r\n"
                  "Connection: close\r\n\r\n");
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_EQ(http_post(s.port, "/m/0/m.jsonl", "").status, 405);
  const HttpReply started = http_post(s.port, "/review/0/m.jsonl", "");
  EXPECT_EQ(started.status, 202) << started.body;
  EXPECT_NE(started.body.find("\"state\":\"running\""), std::string::npos) << started.body;
  // Polled until done; the counts only grow and end at every decision of the match.
  google::protobuf::Struct last;
  int done = 0;
  for (const auto until = std::chrono::steady_clock::now() + 60s;
       std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(50ms)) {
    last.Clear();
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                    http_get(s.port, "/review/0/m.jsonl").body, &last)
                    .ok());
    const int now = static_cast<int>(last.fields().at("done").number_value());
    EXPECT_GE(now, done);
    done = now;
    if (last.fields().at("state").string_value() != "running") break;
  }
  ASSERT_EQ(last.fields().at("state").string_value(), "done");
  int plays = 0;
  for (const v1::LogRecord& r : read_log(log)) plays += r.has_play();
  EXPECT_EQ(done, plays);
  EXPECT_EQ(static_cast<int>(last.fields().at("total").number_value()), plays);
  EXPECT_TRUE(std::filesystem::exists(dir + "/m.review.jsonl"));
  const HttpReply page = http_get(s.port, "/m/0/m.jsonl");
  EXPECT_NE(page.body.find("\"reviewed\":true"), std::string::npos);
  const HttpReply listing = http_get(s.port, "/t/0/");
  EXPECT_EQ(listing.body.find("review.jsonl"), std::string::npos) << listing.body;
  EXPECT_EQ(http_get(s.port, "/m/0/m.review.jsonl").status, 404);
  EXPECT_EQ(s.child->interrupt(), 0);
}

// With --spectators full the folder's owner shows a match in progress whole, as after its end.
TEST(ServeTest, ALiveMatchIsStreamedStepByStepUntilItEnds) {
  const std::string dir = temp_dir("serve-live");
  const std::string log = dir + "/live.jsonl";
  ServeProcess s = serve({dir, "--spectators", "full"});
  // A match slow enough to watch: one bot takes 15 ms per decision.
  Child match({kReferee, "match", "--seed", "4", "--log", log,
               "slow=" + kBadBot + " --mode slow --ms 15", "greedy=" + kGreedy});
  for (int i = 0; i < 200 && !std::filesystem::exists(log); ++i) std::this_thread::sleep_for(10ms);
  // The listing and the match's page say so once the server has seen the log's first records
  // (polled, up to 10 s).
  const std::string live_link = "\"live\":\"/live/0/live.jsonl?seat=\"";
  HttpReply listing, page;
  for (int i = 0; i < 1000; ++i) {
    listing = http_get(s.port, "/t/0/");
    page = http_get(s.port, "/m/0/live.jsonl");
    if (listing.body.find("playing now") != std::string::npos &&
        page.body.find(live_link) != std::string::npos)
      break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_NE(listing.body.find("playing now"), std::string::npos) << listing.body;
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find(live_link), std::string::npos);

  std::vector<google::protobuf::Value> steps;  // every step, in order, as streamed
  int messages = 0;
  bool finished = false;
  read_events(
      s.port, "/live/0/live.jsonl?seat=&from=0",
      [&](const std::string& data) {
        const auto m = json(data);
        EXPECT_EQ(static_cast<size_t>(m.fields().at("from").number_value()), steps.size());
        for (const auto& st : m.fields().at("steps").list_value().values()) steps.push_back(st);
        ++messages;
        finished = m.fields().at("finished").bool_value();
        return !finished;
      },
      60s);
  EXPECT_EQ(match.wait_exit(30s), 0) << match.output();
  EXPECT_TRUE(finished);
  EXPECT_GT(messages, 10) << "the match should arrive in many pieces, as it is played";
  // The streamed steps are the finished replay's steps, all of them, in order.
  const HttpReply done = http_get(s.port, "/m/0/live.jsonl");
  const auto data = json(
      between(done.body, "<script type=\"application/json\" id=\"replay-data\">", "</script>"));
  const auto& all = data.fields().at("steps").list_value().values();
  ASSERT_EQ(static_cast<size_t>(all.size()), steps.size());
  for (int i = 0; i < all.size(); ++i)
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(all[i], steps[static_cast<size_t>(i)]))
        << "step " << i << ": " << all[i].DebugString() << " vs "
        << steps[static_cast<size_t>(i)].DebugString();
  EXPECT_EQ(data.fields().at("match").struct_value().fields().count("live"), 0u);
  // A late watcher of a finished match gets everything at once and the stream ends.
  int late = 0;
  read_events(
      s.port, "/live/0/live.jsonl?seat=0&from=3", [&](const std::string&) { return ++late < 5; },
      10s);
  EXPECT_EQ(late, 1);
}

// Whether every step of a replay's data shows a hand only between a hand's end and the next
// deal (when every hand is public): a number is a hidden hand's size, a string its tiles.
bool no_hidden_tile(const google::protobuf::ListValue& steps, std::string* where) {
  bool revealed = false;
  for (int i = 0; i < steps.values_size(); ++i) {
    const auto& f = steps.values(i).struct_value().fields();
    const std::string kind = f.at("k").string_value();
    if (kind == "s") revealed = false;
    if (kind == "e") revealed = true;
    for (const auto& hand : f.at("d").list_value().values())
      if (!revealed && hand.has_string_value()) {
        *where = "step " + std::to_string(i) + " (" + kind + ") shows " + hand.string_value();
        return false;
      }
  }
  return true;
}

// A visitor of the pages (a bot playing at a network address could be one) learns nothing of a
// match in progress that a seat does not see: every view asked for is a spectator's, the seed is
// withheld, the live stream hides the hands, and the log file waits for the match's end.
TEST(ServeTest, AMatchInProgressShowsAVisitorNoHiddenTile) {
  const std::string dir = temp_dir("serve-spectator");
  const std::string log = dir + "/live.jsonl";
  ServeProcess s = serve({dir});
  Child match({kReferee, "match", "--seed", "4", "--log", log,
               "slow=" + kBadBot + " --mode slow --ms 15", "greedy=" + kGreedy});
  HttpReply page;
  for (int i = 0; i < 1000; ++i) {
    page = http_get(s.port, "/m/0/live.jsonl?seat=1");
    if (page.body.find("\"live\":\"/live/") != std::string::npos) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_NE(page.body.find("\"live\":\"/live/"), std::string::npos) << page.body;
  EXPECT_EQ(http_get(s.port, "/log/0/live.jsonl").status, 403);
  std::string where;
  for (const std::string seat : {"", "0", "1"}) {
    SCOPED_TRACE("?seat=" + seat);
    const HttpReply p = http_get(s.port, "/m/0/live.jsonl?seat=" + seat);
    ASSERT_EQ(p.status, 200);
    const auto data =
        json(between(p.body, "<script type=\"application/json\" id=\"replay-data\">", "</script>"));
    const auto& m = data.fields().at("match").struct_value().fields();
    if (m.at("finished").bool_value()) break;  // the match ended meanwhile
    EXPECT_EQ(m.at("viewer").number_value(), 4);
    EXPECT_EQ(m.at("seed").string_value(), "shown when the match is over");
    EXPECT_TRUE(no_hidden_tile(data.fields().at("steps").list_value(), &where)) << where;
  }
  // The live stream as seat 0's view, while the match is played.
  google::protobuf::ListValue streamed;
  bool finished = false;
  read_events(
      s.port, "/live/0/live.jsonl?seat=0&from=0",
      [&](const std::string& text) {
        const auto m = json(text);
        finished = m.fields().at("finished").bool_value();
        if (!finished)
          for (const auto& st : m.fields().at("steps").list_value().values())
            *streamed.add_values() = st;
        return !finished && streamed.values_size() < 60;
      },
      30s);
  EXPECT_GT(streamed.values_size(), 10);
  EXPECT_TRUE(no_hidden_tile(streamed, &where)) << where;
  // Once the match is over, everything is public.
  EXPECT_EQ(match.wait_exit(60s), 0) << match.output();
  EXPECT_EQ(http_get(s.port, "/log/0/live.jsonl").status, 200);
  const HttpReply done = http_get(s.port, "/m/0/live.jsonl");
  const auto data = json(
      between(done.body, "<script type=\"application/json\" id=\"replay-data\">", "</script>"));
  EXPECT_EQ(data.fields().at("match").struct_value().fields().at("seed").string_value(), "4");
  EXPECT_FALSE(no_hidden_tile(data.fields().at("steps").list_value(), &where));
}

}  // namespace
}  // namespace allfives::e2e
