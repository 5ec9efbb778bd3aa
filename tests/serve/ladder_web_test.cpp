// A served ladder's writes, over plain HTTP as a browser (or an attacker) sends them: a user
// signs in with their token and uploads the README's Python bot, which passes its gate and is
// rated; every route refuses what its reader may not do (no session, another user's bot or
// upload, no or a wrong CSRF token, not an organiser); organisers retire versions and reset
// tokens; sign-ins and uploads are limited with when to retry; an upload over the cap is 413
// and leaves nothing behind; hostile archives sent through the page are refused with their
// reasons and write nothing outside their folder; one whose files cannot be made read-only is a
// failed upload with its reason, its version refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "common/archive_writer.h"
#include "e2e/e2e_util.h"
#include "serve/ladder_web_util.h"

namespace allfives::e2e {
namespace {

namespace fs = std::filesystem;
using namespace testing::archives;
using namespace std::chrono_literals;

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A program that passes the gate fast, as a single uploaded file.
std::string greedy_program() {
  return file_text(kGreedy);
}

// Uploads `content` as `filename` for bot `bot`; the upload's page (its Location) or "".
std::string upload(WebClient& c, const std::string& bot, const std::string& filename,
                   const std::string& content, int* status = nullptr) {
  c.get("/ladder/0/upload");
  const HttpReply r =
      c.post_upload("/ladder/0/upload", {{"csrf", c.csrf()}, {"bot", bot}}, filename, content);
  if (status) *status = r.status;
  return r.status == 303 ? r.headers.at("location") : "";
}

std::vector<std::string> leftovers(const std::string& ladder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(ladder + "/bots"))
    if (e.path().filename().string().starts_with(".")) out.push_back(e.path().string());
  return out;
}

TEST(LadderWeb, TheReadmesPythonBotIsUploadedPassesItsGateAndIsRated) {
  WebLadder w = make_web_ladder("web-upload");
  ASSERT_GT(w.serve.port, 0);
  fs::create_directories(w.dir + "/fox");
  fs::copy_file(kGreedy, w.dir + "/fox/bot");
  ASSERT_EQ(run({kReferee, "ladder", "submit", w.ladder, "--token", w.tokens["bob"], "fox",
                 w.dir + "/fox"})
                .exit_code,
            0);

  WebClient alice(w.serve.port);
  const HttpReply signed_in = alice.sign_in(w.tokens["alice"]);
  ASSERT_EQ(signed_in.status, 303) << signed_in.body;
  EXPECT_EQ(signed_in.headers.at("location"), "/ladder/0/user/alice");
  const std::string& cookie = signed_in.headers.at("set-cookie");
  for (const char* part : {"HttpOnly", "SameSite=Strict", "Path=/ladder/0/"})
    EXPECT_TRUE(contains(cookie, part)) << cookie;
  EXPECT_TRUE(contains(alice.get("/ladder/0/user/alice").body, "id=\"upload-link\""));

  const bool python = ALLFIVES_PYTHON_BOTS;
  const std::string where = python ? upload(alice, "first", "first.py", kFirstPy)
                                   : upload(alice, "first", "bot", greedy_program());
  ASSERT_TRUE(where.starts_with("/ladder/0/upload/")) << where;
  const HttpReply page = alice.get(where);
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.headers.at("content-security-policy"), "script-src 'sha256-"));
  const std::string status = wait_upload(alice, where);
  EXPECT_TRUE(contains(status, "\"state\":\"passed\"")) << status;
  EXPECT_TRUE(contains(status, "\"version\":\"first@1\"")) << status;
  EXPECT_TRUE(std::regex_search(status, std::regex("median [0-9.]+ ms, max [0-9.]+ ms over [0-9]+ "
                                                   "decisions")))
      << status;
  EXPECT_TRUE(leftovers(w.ladder).empty());

  const RunResult rounds =
      run({kReferee, "ladder", "run", w.ladder, "--rounds", "2"}, std::chrono::seconds(180));
  ASSERT_EQ(rounds.exit_code, 0) << rounds.output;
  const HttpReply board = alice.get("/ladder/0/");
  EXPECT_TRUE(contains(board.body, "<a href=\"/ladder/0/bot/first\">first@1</a>")) << board.body;
  EXPECT_TRUE(contains(board.body, "Last played")) << board.body;
  EXPECT_TRUE(contains(board.body, " ago</td>") || contains(board.body, "just now</td>"))
      << board.body;
  const HttpReply bot = alice.get("/ladder/0/bot/first");
  EXPECT_TRUE(contains(bot.body, "<table id=\"head-to-head\">")) << bot.body;
  EXPECT_TRUE(contains(bot.body, "<a href=\"/ladder/0/bot/fox\">fox</a>")) << bot.body;
  EXPECT_TRUE(contains(bot.body, "<svg class=\"plot\"")) << bot.body;
}

TEST(LadderWeb, EachRouteRefusesWhatItsReaderMayNotDo) {
  WebLadder w = make_web_ladder("web-routes");
  ASSERT_GT(w.serve.port, 0);
  WebClient nobody(w.serve.port);
  EXPECT_EQ(nobody.get("/ladder/0/upload").status, 303);
  EXPECT_EQ(nobody.get("/ladder/0/admin").status, 303);
  EXPECT_EQ(nobody.post_upload("/ladder/0/upload", {{"bot", "x"}}, "bot", "x").status, 401);
  for (const char* form : {"/ladder/0/signout", "/ladder/0/admin/retire", "/ladder/0/admin/reset"})
    EXPECT_EQ(nobody.post_form(form, {{"csrf", "0"}}).status, 401) << form;

  WebClient alice(w.serve.port), bob(w.serve.port), boss(w.serve.port);
  ASSERT_EQ(alice.sign_in(w.tokens["alice"]).status, 303);
  ASSERT_EQ(bob.sign_in(w.tokens["bob"]).status, 303);
  ASSERT_EQ(boss.sign_in(w.tokens["boss"]).status, 303);
  const std::string where = upload(alice, "mine", "bot", greedy_program());
  ASSERT_FALSE(where.empty());
  EXPECT_TRUE(contains(wait_upload(alice, where), "\"passed\""));

  // Bob: not Alice's bot, not her upload, not the organisers' forms.
  int status = 0;
  EXPECT_EQ(upload(bob, "mine", "bot", greedy_program(), &status), "");
  EXPECT_EQ(status, 403);
  EXPECT_EQ(bob.get(where).status, 404);
  EXPECT_EQ(bob.get(where + ".json").status, 404);
  EXPECT_EQ(bob.get("/ladder/0/admin").status, 403);
  bob.get("/ladder/0/upload");
  EXPECT_EQ(
      bob.post_form("/ladder/0/admin/retire", {{"csrf", bob.csrf()}, {"version", "mine@1"}}).status,
      403);
  EXPECT_EQ(
      bob.post_form("/ladder/0/admin/reset", {{"csrf", bob.csrf()}, {"user", "alice"}}).status,
      403);

  // No or someone else's CSRF token: refused, whoever is signed in.
  EXPECT_EQ(
      alice.post_upload("/ladder/0/upload", {{"bot", "mine"}}, "bot", greedy_program()).status,
      403);
  EXPECT_EQ(alice
                .post_upload("/ladder/0/upload", {{"csrf", bob.csrf()}, {"bot", "mine"}}, "bot",
                             greedy_program())
                .status,
            403);
  EXPECT_EQ(alice.post_form("/ladder/0/signout", {{"csrf", bob.csrf()}}).status, 403);
  boss.get("/ladder/0/admin");
  EXPECT_EQ(
      boss.post_form("/ladder/0/admin/retire", {{"csrf", alice.csrf()}, {"version", "mine@1"}})
          .status,
      403);
  // A sign-in form needs its own cookie's token (a page elsewhere cannot sign anyone in).
  WebClient forged(w.serve.port);
  EXPECT_EQ(
      forged.post_form("/ladder/0/signin", {{"csrf", alice.csrf()}, {"token", w.tokens["alice"]}})
          .status,
      403);
  EXPECT_EQ(forged.sign_in(w.tokens["alice"] + "0").status, 401);

  // The organiser retires Alice's version and resets her token: her session ends.
  boss.get("/ladder/0/admin");
  const HttpReply retired =
      boss.post_form("/ladder/0/admin/retire", {{"csrf", boss.csrf()}, {"version", "mine@1"}});
  EXPECT_TRUE(contains(retired.body, "mine@1 retired")) << retired.body;
  EXPECT_TRUE(contains(run({kReferee, "ladder", "list", w.ladder}).output, "retired"));
  const HttpReply reset =
      boss.post_form("/ladder/0/admin/reset", {{"csrf", boss.csrf()}, {"user", "alice"}});
  std::smatch token;
  ASSERT_TRUE(
      std::regex_search(reset.body, token, std::regex("id=\"token\">([0-9]+\\.[0-9a-f]+)<")))
      << reset.body;
  EXPECT_EQ(alice.get("/ladder/0/upload").status, 303) << "her session outlived the reset";
  EXPECT_EQ(WebClient(w.serve.port).sign_in(w.tokens["alice"]).status, 401);
  EXPECT_EQ(WebClient(w.serve.port).sign_in(token[1]).status, 303);

  // Sign-in attempts from one address are limited: the answer says when to retry.
  HttpReply limited;
  for (int i = 0; i < 12 && limited.status != 429; ++i)
    limited = WebClient(w.serve.port).sign_in("1.00000000000000000000000000000000");
  ASSERT_EQ(limited.status, 429) << limited.body;
  EXPECT_TRUE(contains(limited.body, "try again in")) << limited.body;
  EXPECT_GT(std::stoi(limited.headers.at("retry-after")), 0);
}

TEST(LadderWeb, UploadsOverTheCapOrTheHourlyLimitAreRefusedWithWhenToRetry) {
  WebLadder w =
      make_web_ladder("web-limits", "max_upload_bytes: 1048576\nsubmissions_per_hour: 2\n");
  ASSERT_GT(w.serve.port, 0);
  WebClient alice(w.serve.port);
  ASSERT_EQ(alice.sign_in(w.tokens["alice"]).status, 303);
  int status = 0;
  upload(alice, "big", "bot.py", std::string(3 << 20, 'x'), &status);
  EXPECT_EQ(status, 413);
  const std::string second = upload(alice, "small", "bot.py", "print(1)\n");
  ASSERT_FALSE(second.empty());
  wait_upload(alice, second);
  alice.get("/ladder/0/upload");
  const HttpReply third = alice.post_upload(
      "/ladder/0/upload", {{"csrf", alice.csrf()}, {"bot", "small"}}, "bot.py", "print(1)\n");
  ASSERT_EQ(third.status, 429) << third.body;
  EXPECT_TRUE(contains(third.body, "try again in")) << third.body;
  EXPECT_GT(std::stoi(third.headers.at("retry-after")), 3000);
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (!leftovers(w.ladder).empty() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(leftovers(w.ladder).empty()) << leftovers(w.ladder).front();
}

TEST(LadderWeb, HostileArchivesThroughThePageAreRefusedWithTheirReasons) {
  WebLadder w = make_web_ladder(
      "web-hostile",
      "submissions_per_hour: 50\nmax_upload_bytes: 1048576\nmax_upload_files: 500\n");
  ASSERT_GT(w.serve.port, 0);
  WebClient alice(w.serve.port);
  ASSERT_EQ(alice.sign_in(w.tokens["alice"]).status, 303);
  std::vector<Entry> many;
  for (int i = 0; i < 10000; ++i)
    many.push_back(file(std::string("f").append(std::to_string(i)), "x"));
  Entry bomb = file("zeros", std::string(1 << 16, '\0'));
  bomb.repeat = 1 << 10;  // 64 MiB of zeros, a few hundred KiB zipped
  const struct {
    const char* archive;
    std::vector<Entry> entries;
    const char* reason;
  } cases[] = {
      {"slip.zip", {file("../../evil", "x")}, "climbs out with .."},
      {"abs.tar.gz", {file("/etc/cron.d/evil", "x")}, "absolute"},
      {"out.tar.gz", {link("out", "/etc"), file("out/passwd", "x")}, "a link may only lead"},
      {"bomb.zip", {bomb}, "more than 1048576 bytes"},
      {"many.tar.gz", many, "more than 500 files and folders"},
      {"names.tar.gz", {file("bad\xff\xfe.py", "x")}, "not UTF-8"},
  };
  for (const auto& c : cases) {
    const std::string path = w.dir + "/" + c.archive;
    write_archive(path, c.entries);
    const std::string where = upload(alice, "evil", c.archive, file_text(path));
    ASSERT_FALSE(where.empty()) << c.archive;
    const std::string status = wait_upload(alice, where);
    EXPECT_TRUE(contains(status, "\"state\":\"refused\"")) << c.archive << ": " << status;
    EXPECT_TRUE(contains(status, c.reason)) << c.archive << ": " << status;
  }
  EXPECT_FALSE(fs::exists(w.dir + "/evil"));
  EXPECT_FALSE(fs::exists(w.ladder + "/evil"));
  EXPECT_FALSE(fs::exists(w.ladder + "/bots/evil@1"));
  EXPECT_TRUE(leftovers(w.ladder).empty());
  EXPECT_FALSE(contains(run({kReferee, "ladder", "list", w.ladder}).output, "evil"));
}

TEST(LadderWeb, AnUploadWhoseFilesCannotBeMadeReadOnlyFailsAndItsVersionIsRefused) {
  WebLadder w = make_web_ladder("web-readonly");
  ASSERT_GT(w.serve.port, 0);
  WebClient alice(w.serve.port);
  ASSERT_EQ(alice.sign_in(w.tokens["alice"]).status, 303);
  // A file nested deeper than a path can name (PATH_MAX): written below the version's folder one
  // folder at a time, but no call that takes its whole path can reach it.
  std::string deep;
  for (int i = 0; i < 20; ++i) deep.append(std::string(240, 'd')).append("/");
  const std::string path = w.dir + "/deep.tar.gz";
  write_archive(path, {file("bot", greedy_program(), 0755), file(deep + "x", "x")});
  const std::string where = upload(alice, "deep", "deep.tar.gz", file_text(path));
  ASSERT_FALSE(where.empty());
  const std::string status = wait_upload(alice, where);
  EXPECT_TRUE(contains(status, "\"state\":\"failed\"")) << status.substr(0, 400);
  EXPECT_TRUE(contains(status, "could not be made read-only")) << status.substr(0, 400);
  EXPECT_FALSE(contains(status, w.ladder)) << "the server's folders stay its own";
  const std::string list = run({kReferee, "ladder", "list", w.ladder}).output;
  const size_t at = list.find("deep@1");
  ASSERT_NE(at, std::string::npos) << list;
  EXPECT_TRUE(contains(list.substr(at, list.find('\n', at) - at), "refused")) << list;
}

// Behind a reverse proxy every visitor arrives from the proxy's address: with --trusted-proxy
// its requests count by the last X-Forwarded-For entry (the address the proxy saw), so one
// visitor's failed sign-ins do not hold back another's.
TEST(LadderWeb, BehindATrustedProxySignInsAreLimitedPerForwardedAddress) {
  WebLadder w = make_web_ladder("web-proxy", "", {"--trusted-proxy", "127.0.0.1"});
  ASSERT_GT(w.serve.port, 0);
  const auto attempt = [&](const std::string& from) {
    WebClient c(w.serve.port);
    // The first entry is the visitor's own claim; only the proxy's last one counts.
    c.set_head("X-Forwarded-For: 198.51.100.7, " + from + "\r\n");
    return c.sign_in("1.00000000000000000000000000000000").status;
  };
  int status = 0;
  for (int i = 0; i < 12 && status != 429; ++i) status = attempt("203.0.113.1");
  ASSERT_EQ(status, 429);
  EXPECT_EQ(attempt("203.0.113.2"), 401) << "another visitor is not held back";
  EXPECT_EQ(attempt("203.0.113.1"), 429);
}

// The pages keep a ladder's definition between requests, and read it again once it changes.
TEST(LadderWeb, AChangedLadderFileIsReadAgain) {
  WebLadder w = make_web_ladder("web-definition");
  ASSERT_GT(w.serve.port, 0);
  WebClient c(w.serve.port);
  const std::string before = c.get("/ladder/0/").body;
  ASSERT_TRUE(contains(before, "web")) << before;
  EXPECT_FALSE(contains(before, "renamed-ladder"));
  const std::string file = w.ladder + "/ladder.txtpb";
  std::string text = file_text(file);
  const size_t at = text.find("name: \"web\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 11, "name: \"renamed-ladder\"");
  std::ofstream(file, std::ios::trunc) << text;
  EXPECT_TRUE(contains(c.get("/ladder/0/").body, "renamed-ladder"));
}

}  // namespace
}  // namespace allfives::e2e
