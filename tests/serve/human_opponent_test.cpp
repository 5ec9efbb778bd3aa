// The human seat's choice of opponent for "play again", over plain sockets: the page is
// offered the command line's bots and the sample bots beside the referee; a choice outside
// that list (a path, a name not offered) is refused and starts nothing; a sample bot chosen
// plays the next match under the command line's confinement, and in a 3-player match it takes
// every bot seat. A play made while the strong search's suggestion was shown is marked so in
// the match's log, which `referee verify` accepts.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;

google::protobuf::Struct parse(const std::string& text) {
  google::protobuf::Struct s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &s).ok()) << text;
  return s;
}

// Reads the seat's tables until one satisfies `done`; returns it (empty if none in time).
google::protobuf::Struct table_when(
    const HumanMatch& h, const std::function<bool(const google::protobuf::Struct&)>& done,
    std::chrono::milliseconds limit = 30s) {
  google::protobuf::Struct found;
  read_events(
      h.port, "/events?token=" + h.token,
      [&](const std::string& data) {
        const google::protobuf::Struct t = parse(data);
        if (!done(t)) return true;
        found = t;
        return false;
      },
      limit);
  return found;
}

bool over_with_rematch(const google::protobuf::Struct& t, int match) {
  const auto& f = t.fields();
  return f.at("match").number_value() == match && f.at("over").bool_value() &&
         f.at("rematch").bool_value();
}

std::vector<std::string> ids_offered(const google::protobuf::Struct& t) {
  std::vector<std::string> ids;
  if (!t.fields().count("opponents")) return ids;
  for (const auto& o : t.fields().at("opponents").list_value().values())
    ids.push_back(o.struct_value().fields().at("id").string_value());
  return ids;
}

std::string rematch(const HumanMatch& h, const std::string& body, int* status) {
  const HttpReply r = http_post(h.port, "/rematch?token=" + h.token, body);
  *status = r.status;
  return r.body;
}

// The person never answers (a 300 ms move, no bank): each match ends at the person's first
// turn, so the test is about what "play again" starts, not about play.
const std::vector<std::string> kQuickLoss = {"--move-time-ms", "300", "--time-bank-ms", "0"};

TEST(HumanOpponentTest, OnlyAnOfferedOpponentIsPlayedAndItKeepsTheConfinement) {
  const std::string dir = temp_dir("human-opponent");
  const std::string shared = dir + "/shared";
  std::filesystem::create_directories(shared);
  std::vector<std::string> extra = kQuickLoss;
  for (const char* a : {"--memory-mib", "300", "--read-only"}) extra.push_back(a);
  extra.push_back(shared);
  HumanMatch h = start_human_match(kReferee, kGreedy, dir + "/human.jsonl", extra);
  ASSERT_GT(h.port, 0) << h.referee->output();
  const auto first = table_when(h, [](const auto& t) { return over_with_rematch(t, 1); });
  ASSERT_TRUE(first.fields().count("over")) << h.referee->output();
  // The command line's bots first (by the name given there), then the sample bots built
  // beside the referee (this build has random_bot and greedy_bot).
  const std::vector<std::string> ids = ids_offered(first);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], "");
  EXPECT_EQ(first.fields()
                .at("opponents")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("name")
                .string_value(),
            "greedy");
  EXPECT_NE(std::find(ids.begin(), ids.end(), "random"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "greedy"), ids.end());
  EXPECT_EQ(first.fields().at("opponent").string_value(), "");
  // Anything else is refused, and no match starts: paths (the sample bot's own among them),
  // other names, a differently written name.
  int status = 0;
  for (const std::string& bad :
       std::vector<std::string>{"/bin/sh", kRandom, "../sample_bots/random_bot", "random_bot",
                                "Random", "random%00", "%72andom", "random%20", "misbehaving"}) {
    const std::string why = rematch(h, "opponent=" + bad, &status);
    EXPECT_EQ(status, 400) << bad << ": " << why;
    EXPECT_NE(why.find("no such opponent"), std::string::npos) << why;
  }
  // Still offered, still the first match.
  const auto still = table_when(
      h, [](const auto&) { return true; }, 10s);
  EXPECT_TRUE(over_with_rematch(still, 1)) << h.referee->output();
  EXPECT_FALSE(std::filesystem::exists(dir + "/human-2.jsonl"));
  EXPECT_EQ(h.referee->wait_for_line("Another match", 1s), "") << h.referee->output();
  // An offered one: the next match is against it, sandboxed with the command line's limits and
  // read-only folder.
  EXPECT_EQ((rematch(h, "opponent=random", &status), status), 200);
  const auto second = table_when(h, [](const auto& t) { return over_with_rematch(t, 2); });
  ASSERT_TRUE(second.fields().count("over")) << h.referee->output();
  EXPECT_EQ(second.fields().at("opponent").string_value(), "random");
  EXPECT_EQ(second.fields().at("names").list_value().values(1).string_value(), "random");
  const auto log = read_log(dir + "/human-2.jsonl");
  ASSERT_FALSE(log.empty());
  const auto& bot = log[0].header().bots(1);
  EXPECT_EQ(bot.display_name(), "random");
  EXPECT_EQ(std::filesystem::path(bot.command()).filename(), "random_bot");
  EXPECT_TRUE(bot.confinement().sandboxed());
  EXPECT_EQ(bot.confinement().memory_mib(), 300u);
  const auto& dirs = bot.confinement().read_only_dirs();
  EXPECT_TRUE(std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
    std::error_code ec;
    return std::filesystem::equivalent(d, shared, ec);
  })) << "the --read-only folder is not among the sample bot's";
  // Play again without a choice: the same opponent as now.
  EXPECT_EQ((rematch(h, "", &status), status), 200);
  const auto third = table_when(h, [](const auto& t) { return over_with_rematch(t, 3); });
  EXPECT_EQ(third.fields().at("opponent").string_value(), "random");
  EXPECT_EQ(read_log(dir + "/human-3.jsonl")[0].header().bots(1).display_name(), "random");
  // And back to the command line's bot.
  EXPECT_EQ((rematch(h, "opponent=", &status), status), 200);
  table_when(h, [](const auto& t) { return over_with_rematch(t, 4); });
  EXPECT_EQ(read_log(dir + "/human-4.jsonl")[0].header().bots(1).display_name(), "greedy");
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

// In a 3-player match the sample bot chosen plays every seat but the person's.
TEST(HumanOpponentTest, InAThreePlayerMatchTheChoiceTakesEveryBotSeat) {
  const std::string dir = temp_dir("human-opponent-3p");
  HumanMatch h;
  std::vector<std::string> argv = {
      kReferee, "match", "--format", "3p", "--log", dir + "/human.jsonl", "--serve", "127.0.0.1:0"};
  argv.insert(argv.end(), kQuickLoss.begin(), kQuickLoss.end());
  for (const std::string& a : {std::string("me=human"), "greedy=" + kGreedy, "rnd=" + kRandom})
    argv.push_back(a);
  h.referee = std::make_unique<Child>(argv);
  const std::string line = h.referee->wait_for_line("http://", 10s);
  ASSERT_NE(line.find("http://"), std::string::npos) << h.referee->output();
  ASSERT_TRUE(split_url(line.substr(line.find("http://")), h.port, h.target));
  h.token = h.target.substr(h.target.find("token=") + 6);
  const auto first = table_when(h, [](const auto& t) { return over_with_rematch(t, 1); });
  ASSERT_TRUE(first.fields().count("opponents")) << h.referee->output();
  EXPECT_EQ(first.fields()
                .at("opponents")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("name")
                .string_value(),
            "greedy, rnd");
  int status = 0;
  EXPECT_EQ((rematch(h, "opponent=greedy", &status), status), 200);
  table_when(h, [](const auto& t) { return over_with_rematch(t, 2); });
  const auto log = read_log(dir + "/human-2.jsonl");
  ASSERT_FALSE(log.empty());
  ASSERT_EQ(log[0].header().bots_size(), 3);
  EXPECT_EQ(log[0].header().bots(0).display_name(), "me");
  for (int s : {1, 2}) {
    EXPECT_EQ(log[0].header().bots(s).display_name(), "greedy") << "seat " << s;
    EXPECT_EQ(std::filesystem::path(log[0].header().bots(s).command()).filename(), "greedy_bot");
  }
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
}

TEST(HumanOpponentTest, APlayMadeWhileASuggestionWasShownIsMarkedInTheLog) {
  const std::string dir = temp_dir("human-hint");
  HumanMatch h = start_human_match(kReferee, kGreedy, dir + "/human.jsonl",
                                   {"--move-time-ms", "8000", "--time-bank-ms", "0"});
  ASSERT_GT(h.port, 0) << h.referee->output();
  ASSERT_EQ(http_post(h.port, "/hint?token=" + h.token, "on=1").status, 200);
  const auto shown = table_when(h, [](const auto& t) {
    return t.fields().count("hint") && t.fields().at("hint").number_value() >= 0;
  });
  ASSERT_TRUE(shown.fields().count("hint")) << h.referee->output();
  const int hint = static_cast<int>(shown.fields().at("hint").number_value());
  const auto& play = shown.fields().at("legal").list_value().values(hint).struct_value().fields();
  const std::string tile = play.at("tile").string_value();
  const std::string said = std::string("hint shown: ") + tile[0] + "-" + tile[1] +
                           (play.at("end").string_value() == "right" ? "@R" : "@L");
  const std::string seq =
      std::to_string(static_cast<long long>(shown.fields().at("seq").number_value()));
  ASSERT_EQ(
      http_post(h.port, "/play?token=" + h.token, "seq=" + seq + "&play=" + std::to_string(hint))
          .status,
      200);
  // The person answers no more: the match ends at their next turn, with the marked play logged.
  table_when(h, [](const auto& t) { return t.fields().at("over").bool_value(); });
  EXPECT_EQ(http_post(h.port, "/leave?token=" + h.token, "").status, 200);
  EXPECT_EQ(h.referee->wait_exit(30s), 0) << h.referee->output();
  std::vector<std::string> comments;
  for (const v1::LogRecord& r : read_log(h.log))
    if (r.has_play() && r.play().seat() == 0) comments.push_back(r.play().comment());
  ASSERT_FALSE(comments.empty());
  EXPECT_EQ(comments[0], said);
  const RunResult verify = run({kReferee, "verify", h.log});
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
}

}  // namespace
}  // namespace allfives::e2e
