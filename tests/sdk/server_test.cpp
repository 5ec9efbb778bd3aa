// The bot SDK's server, in this process, driven by a raw gRPC client acting as the referee.
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include "allfives/bot/bot.h"
#include "allfives/bot/server.h"
#include "allfives/wire/convert.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "sdk_test_util.h"

namespace allfives::testing {
namespace {

using bot::Bot;
using bot::Clock;
using bot::MatchInfo;

// The folder prefix of the server a death test's child starts for the test run by process
// `parent`: the child dies with its folder in place, and the parent removes it afterwards.
std::string death_folder(pid_t parent) {
  return "allfives-sdk-death-" + std::to_string(parent);
}

// What the bots of one server saw, for the tests to check afterwards.
struct Record {
  std::mutex mu;
  std::vector<MatchInfo> infos;
  int hand_starts = 0, hand_ends = 0, match_ends = 0, events = 0, decisions = 0;
  std::vector<bot::MatchEndInfo> ends;
};

// Plays the last legal play (so a correct index is rarely 0) and records every hook.
class RecordingBot final : public Bot {
 public:
  explicit RecordingBot(Record& r) : r_(r) {}
  Play choose_play(const View& view, const Clock& clock) override {
    if (clock.hard_deadline() <= clock.received) throw std::logic_error("no time to think");
    std::lock_guard<std::mutex> lock(r_.mu);
    ++r_.decisions;
    return view.legal_plays()[view.legal_plays().size() - 1];
  }
  void on_match_start(const MatchInfo& info) override {
    if (started_) throw std::logic_error("on_match_start twice on one bot");
    started_ = true;
    std::lock_guard<std::mutex> lock(r_.mu);
    r_.infos.push_back(info);
  }
  void on_hand_start(const bot::HandStartInfo&) override {
    std::lock_guard<std::mutex> lock(r_.mu);
    ++r_.hand_starts;
  }
  void on_event(const bot::PublicEvent& e) override {
    if (e.kind != EventKind::kPlay && e.kind != EventKind::kDraw && e.kind != EventKind::kPass)
      throw std::logic_error("an event of a kind bots should not get");
    std::lock_guard<std::mutex> lock(r_.mu);
    ++r_.events;
  }
  void on_hand_end(const bot::HandEndInfo&) override {
    std::lock_guard<std::mutex> lock(r_.mu);
    ++r_.hand_ends;
  }
  void on_match_end(const bot::MatchEndInfo& info) override {
    std::lock_guard<std::mutex> lock(r_.mu);
    ++r_.match_ends;
    r_.ends.push_back(info);
  }

 private:
  Record& r_;
  bool started_ = false;
};

bot::BotFactory recording(Record& r) {
  return [&r](const MatchInfo&) { return std::make_unique<RecordingBot>(r); };
}

v1::BotMessage read_one(MatchStream& s) {
  v1::BotMessage m;
  if (!s.stream->Read(&m)) m.Clear();
  return m;
}

v1::RefereeMessage match_end_message() {
  v1::RefereeMessage r;
  r.mutable_match_end()->set_reason(v1::MATCH_END_REASON_ABORTED);
  r.mutable_match_end()->set_winner_side(-1);
  r.mutable_match_end()->set_fault_seat(-1);
  return r;
}

// Opens a stream and sends MatchStart and a TurnRequest (with the hand's start as its event)
// for the first decision of the match dealt from `seed`; returns the state so the answer can
// be checked.
State first_turn(MatchStream& s, Format format, uint64_t seed, const std::string& match_id,
                 v1::BotMessage* hello) {
  EventList events;
  State state = State::new_match(Config::standard(format), seed, &events);
  const int seat = state.seat_to_move();
  EXPECT_TRUE(s.send(wrap(make_match_start(format, seat, match_id))));
  *hello = read_one(s);
  EXPECT_EQ(events.size(), 1);
  v1::RefereeMessage request;
  *request.mutable_turn_request()->add_events() = hand_start_for(events[0], seat, state);
  wire::fill_turn_request(state.view(seat), request.mutable_turn_request());
  request.mutable_turn_request()->set_move_time_ms(1000);
  request.mutable_turn_request()->set_time_bank_ms(1000);
  EXPECT_TRUE(s.send(request));
  return state;
}

TEST(SdkSeed, MatchSeedDependsOnSeedMatchIdAndSeatOnly) {
  const uint64_t s = bot::match_seed(7, "m-1", 0);
  EXPECT_EQ(s, bot::match_seed(7, "m-1", 0));
  EXPECT_NE(s, bot::match_seed(8, "m-1", 0));
  EXPECT_NE(s, bot::match_seed(7, "m-2", 0));
  EXPECT_NE(s, bot::match_seed(7, "m-1", 1));
}

TEST(SdkServer, HealthReportsServing) {
  Record r;
  TestServer server(recording(r));
  auto stub = grpc::health::v1::Health::NewStub(connect(server.address));
  grpc::ClientContext context;
  context.set_deadline(deadline_in(std::chrono::seconds(10)));
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(stub->Check(&context, request, &response).ok());
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST(SdkServer, MatchStartIsAnsweredWithHelloAndFillsMatchInfo) {
  Record r;
  TestServer server(recording(r), /*seed=*/7, {"recorder", "2.5"});
  MatchStream s(*server.stub, std::chrono::seconds(10));
  v1::MatchStart start = make_match_start(Format::kPartnerships, 1, "match-42");
  start.set_move_time_ms(250);
  start.set_time_bank_ms(5000);
  ASSERT_TRUE(s.send(wrap(start)));
  const v1::BotMessage hello = read_one(s);
  ASSERT_TRUE(hello.has_hello());
  EXPECT_EQ(hello.hello().name(), "recorder");
  EXPECT_EQ(hello.hello().version(), "2.5");
  EXPECT_EQ(hello.hello().protocol_version(), wire::kProtocolVersion);

  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.infos.size(), 1u);
  const MatchInfo& info = r.infos[0];
  EXPECT_EQ(info.match_id, "match-42");
  EXPECT_EQ(info.config, Config::standard(Format::kPartnerships));
  EXPECT_EQ(info.seat, 1);
  EXPECT_EQ(info.side, 1);
  EXPECT_EQ(info.partner, 3);
  EXPECT_EQ(info.num_players, 4);
  EXPECT_EQ(info.num_sides, 2);
  EXPECT_EQ(info.move_time, std::chrono::milliseconds(250));
  EXPECT_EQ(info.time_bank, std::chrono::milliseconds(5000));
  EXPECT_EQ(info.seat_names, (std::vector<std::string>{"seat0", "seat1", "seat2", "seat3"}));
  EXPECT_EQ(info.seed, bot::match_seed(7, "match-42", 1));
  EXPECT_EQ(r.match_ends, 1);
  EXPECT_EQ(r.ends[0].reason, "aborted");
}

TEST(SdkServer, MatchStartParamsReachMatchInfoAndParamFallsBackToItsDefault) {
  Record r;
  TestServer server(recording(r));
  for (const bool with_params : {true, false}) {
    MatchStream s(*server.stub, std::chrono::seconds(10));
    v1::MatchStart start = make_match_start(Format::kTwoPlayers, 0, "params");
    if (with_params) {
      (*start.mutable_params())["epsilon"] = 0.125;
      (*start.mutable_params())["x"] = -3.5;
    }
    ASSERT_TRUE(s.send(wrap(start)));
    ASSERT_TRUE(read_one(s).has_hello());
    ASSERT_TRUE(s.send(match_end_message()));
    EXPECT_TRUE(s.finish().ok());
  }
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.infos.size(), 2u);
  const MatchInfo& sent = r.infos[0];
  EXPECT_EQ(sent.params, (std::map<std::string, double>{{"epsilon", 0.125}, {"x", -3.5}}));
  EXPECT_EQ(sent.param("epsilon", 0.05), 0.125);
  EXPECT_EQ(sent.param("x", 0.0), -3.5);
  EXPECT_EQ(sent.param("exploration", 0.3), 0.3);
  // A referee that sends no params (an older one, or a bot given none): every default holds.
  EXPECT_TRUE(r.infos[1].params.empty());
  EXPECT_EQ(r.infos[1].param("epsilon", 0.05), 0.05);
}

TEST(SdkServer, TurnRequestFromCoreStateGetsLegalPlayWithMatchingIndex) {
  Record r;
  TestServer server(recording(r));
  for (Format f : kAllFormats) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(std::string(to_string(f)) + " seed " + std::to_string(seed));
      MatchStream s(*server.stub, std::chrono::seconds(10));
      v1::BotMessage hello;
      const State state = first_turn(s, f, seed, "turn", &hello);
      ASSERT_TRUE(hello.has_hello());
      const v1::BotMessage answer = read_one(s);
      ASSERT_TRUE(answer.has_play());
      ASSERT_TRUE(answer.play().has_legal_play_index());
      const PlayList legal = state.legal_plays();
      const uint32_t index = answer.play().legal_play_index();
      ASSERT_LT(index, static_cast<uint32_t>(legal.size()));
      EXPECT_EQ(index, static_cast<uint32_t>(legal.size() - 1));  // the bot plays the last
      Play play;
      std::string error;
      ASSERT_TRUE(wire::from_proto(answer.play().play(), true, play, &error)) << error;
      EXPECT_EQ(play, legal[static_cast<int>(index)]);
      EXPECT_EQ(state.check(play), PlayError::kNone);
      ASSERT_TRUE(s.send(match_end_message()));
      EXPECT_TRUE(s.finish().ok());
    }
  }
}

// A note set with set_comment inside choose_play travels in that decision's PlayAnswer.
TEST(SdkServer, ACommentSetInChoosePlayIsSentWithTheAnswer) {
  class CommentingBot final : public Bot {
    Play choose_play(const View& view, const Clock&) override {
      set_comment("first of " + std::to_string(view.legal_plays().size()));
      return view.legal_plays()[0];
    }
  };
  TestServer server([](const MatchInfo&) { return std::make_unique<CommentingBot>(); });
  MatchStream s(*server.stub, std::chrono::seconds(10));
  v1::BotMessage hello;
  const State state = first_turn(s, Format::kTwoPlayers, 3, "comment", &hello);
  const v1::BotMessage answer = read_one(s);
  ASSERT_TRUE(answer.has_play());
  EXPECT_EQ(answer.play().comment(), "first of " + std::to_string(state.legal_plays().size()));
  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
}

// A bot that names the right end for an opening play still gets the index sent: the
// opening's end is irrelevant and the SDK records it as left, as the core does.
TEST(SdkServer, OpeningPlayOnTheRightEndStillCarriesItsIndex) {
  class RightBot final : public Bot {
    Play choose_play(const View& view, const Clock&) override {
      return Play{view.legal_plays()[0].tile, End::kRight};
    }
  };
  TestServer server([](const MatchInfo&) { return std::make_unique<RightBot>(); });
  MatchStream s(*server.stub, std::chrono::seconds(10));
  v1::BotMessage hello;
  first_turn(s, Format::kTwoPlayers, 3, "open", &hello);
  const v1::BotMessage answer = read_one(s);
  ASSERT_TRUE(answer.has_play());
  EXPECT_TRUE(answer.play().has_legal_play_index());
  EXPECT_EQ(answer.play().play().end(), v1::END_LEFT);
  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
}

TEST(SdkServer, PlaysWholeMatchesInEveryFormat) {
  Record r;
  TestServer server(recording(r));
  int seats = 0;
  for (Format f : kAllFormats) {
    SCOPED_TRACE(std::string(to_string(f)));
    std::vector<v1::Bot::Stub*> stubs(static_cast<size_t>(num_players(f)), server.stub.get());
    const MatchResult m = referee_match(stubs, f, 11, "full-" + std::string(to_string(f)));
    ASSERT_EQ(m.error, "");
    for (const grpc::Status& st : m.statuses) EXPECT_TRUE(st.ok()) << st.error_message();
    EXPECT_GT(m.hands, 0);
    seats += num_players(f);
  }
  std::lock_guard<std::mutex> lock(r.mu);
  EXPECT_EQ(r.match_ends, seats);
  EXPECT_EQ(static_cast<int>(r.infos.size()), seats);  // one Bot object per seat and match
  EXPECT_GE(r.hand_starts, r.hand_ends);
  EXPECT_GT(r.events, 0);
}

TEST(SdkServer, ThrowingBotGetsAnErrorStatusAndTheServerPlaysOn) {
  class Thrower final : public Bot {
    Play choose_play(const View&, const Clock&) override {
      throw std::runtime_error("boom in choose_play");
    }
  };
  Record r;
  TestServer server([&r](const MatchInfo& info) -> std::unique_ptr<Bot> {
    if (info.match_id == "throws") return std::make_unique<Thrower>();
    return std::make_unique<RecordingBot>(r);
  });
  {
    MatchStream s(*server.stub, std::chrono::seconds(10));
    v1::BotMessage hello;
    first_turn(s, Format::kTwoPlayers, 5, "throws", &hello);
    EXPECT_TRUE(hello.has_hello());
    const grpc::Status status = s.finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
    EXPECT_NE(status.error_message().find("boom in choose_play"), std::string::npos)
        << status.error_message();
  }
  const MatchResult m =
      referee_match({server.stub.get(), server.stub.get()}, Format::kTwoPlayers, 5, "after");
  EXPECT_EQ(m.error, "");
  for (const grpc::Status& st : m.statuses) EXPECT_TRUE(st.ok()) << st.error_message();
}

// Out of memory is the exception to the above: the process ends, saying so on stderr, so the
// referee records a crash (a handler error would be a disconnect).
TEST(SdkServer, BadAllocInTheBotEndsTheProcessSayingSo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // gRPC's threads: re-run the test in a child
  class Hungry final : public Bot {
    Play choose_play(const View&, const Clock&) override { throw std::bad_alloc(); }
  };
  EXPECT_DEATH(
      {
        TestServer server([](const MatchInfo&) { return std::make_unique<Hungry>(); }, 0,
                          {"test-bot", "0.1"}, death_folder(::getppid()));
        MatchStream s(*server.stub, std::chrono::seconds(10));
        v1::BotMessage hello;
        first_turn(s, Format::kTwoPlayers, 5, "hungry", &hello);
        s.finish();
      },
      "the bot ran out of memory \\(std::bad_alloc\\) in choose_play; ending the process");
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    if (entry.path().filename().string().rfind(death_folder(::getpid()) + "-", 0) == 0) {
      std::error_code ec;
      std::filesystem::remove_all(entry.path(), ec);
    }
}

TEST(SdkServer, ThrowingFactoryFailsBeforeHello) {
  TestServer server(
      [](const MatchInfo&) -> std::unique_ptr<Bot> { throw std::runtime_error("no bot today"); });
  MatchStream s(*server.stub, std::chrono::seconds(10));
  ASSERT_TRUE(s.send(wrap(make_match_start(Format::kTwoPlayers, 0, "f"))));
  EXPECT_FALSE(read_one(s).has_hello());
  const grpc::Status status = s.finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(status.error_message().find("no bot today"), std::string::npos);
}

TEST(SdkServer, InvalidMessagesEndTheStreamWithInvalidArgument) {
  Record r;
  TestServer server(recording(r));
  EventList events;
  const State state = State::new_match(Config::standard(Format::kTwoPlayers), 9, &events);
  const int seat = state.seat_to_move();
  const v1::Event hand = hand_start_for(events[0], seat, state);
  // A turn request carrying `events`.
  const auto turn_with = [&](std::vector<v1::Event> list) {
    v1::RefereeMessage m;
    for (v1::Event& e : list) *m.mutable_turn_request()->add_events() = std::move(e);
    wire::fill_turn_request(state.view(seat), m.mutable_turn_request());
    return m;
  };
  const v1::RefereeMessage turn = turn_with({});
  const v1::RefereeMessage first = turn_with({hand});
  v1::RefereeMessage bad_tile = first;
  bad_tile.mutable_turn_request()->mutable_your_tiles(0)->set_high(9);
  v1::RefereeMessage no_format = wrap(make_match_start(Format::kTwoPlayers, seat, "bad"));
  no_format.mutable_match_start()->set_format(v1::FORMAT_UNSPECIFIED);
  const v1::RefereeMessage start = wrap(make_match_start(Format::kTwoPlayers, seat, "bad"));
  v1::Event pass;
  pass.mutable_pass()->set_seat(0);
  v1::Event end_of_next;
  end_of_next.mutable_hand_end()->set_hand_index(1);

  struct Case {
    const char* name;
    std::vector<v1::RefereeMessage> messages;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"turn first", {first}, "the first message must be MatchStart"},
      {"empty message", {v1::RefereeMessage()}, "the first message must be MatchStart"},
      {"unknown format", {no_format}, "MatchStart"},
      {"two match starts", {start, start}, "a second MatchStart"},
      {"turn before hand start", {start, turn}, "outside a hand"},
      {"pass before hand start", {start, turn_with({pass, hand})}, "event 0: a play, draw or pass"},
      {"tile out of range", {start, bad_tile}, "TurnRequest:"},
      {"hand start twice", {start, turn_with({hand, hand})}, "event 1: hand_start while hand 0"},
      {"end of another hand",
       {start, turn_with({hand, end_of_next})},
       "event 1: hand_end: hand_index 1 during hand 0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MatchStream s(*server.stub, std::chrono::seconds(10));
    for (const auto& m : c.messages) s.send(m);
    const grpc::Status status = s.finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_NE(status.error_message().find(c.says), std::string::npos) << status.error_message();
  }
}

TEST(SdkServer, ProtocolVersionMismatchStillAnswersHello) {
  std::atomic<int> made{0};
  Record r;
  TestServer server([&made, &r](const MatchInfo&) {
    ++made;
    return std::make_unique<RecordingBot>(r);
  });
  MatchStream s(*server.stub, std::chrono::seconds(10));
  v1::MatchStart start = make_match_start(Format::kTwoPlayers, 0, "v2");
  start.set_protocol_version(wire::kProtocolVersion + 1);
  ASSERT_TRUE(s.send(wrap(start)));
  const v1::BotMessage hello = read_one(s);
  ASSERT_TRUE(hello.has_hello());
  EXPECT_EQ(hello.hello().protocol_version(), wire::kProtocolVersion);
  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
  EXPECT_EQ(made.load(), 0);
}

// A referee offering version 3 gets a Hello saying 3, and each answer carries the nonce
// of the request it answers (bot.proto, "Unasked answers").
TEST(SdkServer, SpeaksProtocol3WhenOfferedAndCarriesEachRequestsNonce) {
  Record r;
  TestServer server(recording(r));
  MatchStream s(*server.stub, std::chrono::seconds(10));
  EventList events;
  const State state = State::new_match(Config::standard(Format::kTwoPlayers), 3, &events);
  const int seat = state.seat_to_move();
  v1::RefereeMessage start = wrap(make_match_start(Format::kTwoPlayers, seat, "nonce"));
  ASSERT_EQ(start.match_start().protocol_version(), 3u);
  ASSERT_EQ(start.match_start().highest_protocol_version(), 3u);
  start.set_nonce(0x1234567890abcdefull);
  ASSERT_TRUE(s.send(start));
  const v1::BotMessage hello = read_one(s);
  ASSERT_TRUE(hello.has_hello());
  EXPECT_EQ(hello.hello().protocol_version(), 3u);
  EXPECT_EQ(hello.nonce(), 0x1234567890abcdefull);
  v1::RefereeMessage request;
  *request.mutable_turn_request()->add_events() = hand_start_for(events[0], seat, state);
  wire::fill_turn_request(state.view(seat), request.mutable_turn_request());
  request.mutable_turn_request()->set_move_time_ms(1000);
  request.mutable_turn_request()->set_time_bank_ms(1000);
  request.set_nonce(0xfedcba0987654321ull);
  ASSERT_TRUE(s.send(request));
  const v1::BotMessage answer = read_one(s);
  ASSERT_TRUE(answer.has_play());
  EXPECT_EQ(answer.nonce(), 0xfedcba0987654321ull);
  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
}

// A referee that speaks version 2 alone (no highest_protocol_version) gets a Hello saying 3,
// which it refuses, and no bot is made: version 2 is not spoken (common.proto says why).
TEST(SdkServer, ARefereeOfVersion2AloneGetsAHelloSaying3AndNoBot) {
  Record r;
  TestServer server(recording(r));
  MatchStream s(*server.stub, std::chrono::seconds(10));
  v1::MatchStart start = make_match_start(Format::kTwoPlayers, 0, "v2-only");
  start.set_protocol_version(2);
  start.clear_highest_protocol_version();
  ASSERT_TRUE(s.send(wrap(start)));
  const v1::BotMessage hello = read_one(s);
  ASSERT_TRUE(hello.has_hello());
  EXPECT_EQ(hello.hello().protocol_version(), 3u);
  ASSERT_TRUE(s.send(match_end_message()));
  EXPECT_TRUE(s.finish().ok());
  std::lock_guard<std::mutex> lock(r.mu);
  EXPECT_EQ(r.infos.size(), 0u);
}

// Each bot waits inside choose_play until the other match's bot is there too: both matches
// can only answer if the server runs them at the same time.
TEST(SdkServer, TwoMatchesRunConcurrentlyWithTheirOwnBots) {
  struct Meeting {
    std::mutex mu;
    std::condition_variable cv;
    int inside = 0;
    std::set<const Bot*> bots;
  } meeting;
  class Waiter final : public Bot {
   public:
    explicit Waiter(Meeting& m) : m_(m) {}
    Play choose_play(const View& view, const Clock&) override {
      std::unique_lock<std::mutex> lock(m_.mu);
      ++m_.inside;
      m_.bots.insert(this);
      m_.cv.notify_all();
      if (!m_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return m_.inside >= 2; }))
        throw std::runtime_error("the other match never came");
      return view.legal_plays()[0];
    }

   private:
    Meeting& m_;
  };
  TestServer server([&meeting](const MatchInfo&) { return std::make_unique<Waiter>(meeting); });
  MatchStream a(*server.stub, std::chrono::seconds(10));
  MatchStream b(*server.stub, std::chrono::seconds(10));
  // Both matches are running before either bot is asked to play (a lone match's bot runs on
  // the polling thread, so a second match that arrives while it thinks waits for it).
  for (auto [s, format, seed, id] : {std::tuple{&a, Format::kTwoPlayers, 1, "a"},
                                     std::tuple{&b, Format::kThreePlayers, 2, "b"}}) {
    EventList events;
    const State state = State::new_match(Config::standard(format), seed, &events);
    const int seat = state.seat_to_move();
    ASSERT_TRUE(s->send(wrap(make_match_start(format, seat, id))));
    ASSERT_TRUE(read_one(*s).has_hello());
  }
  for (auto [s, format, seed] :
       {std::tuple{&a, Format::kTwoPlayers, 1}, std::tuple{&b, Format::kThreePlayers, 2}}) {
    EventList events;
    const State state = State::new_match(Config::standard(format), seed, &events);
    const int seat = state.seat_to_move();
    v1::RefereeMessage request;
    *request.mutable_turn_request()->add_events() = hand_start_for(events[0], seat, state);
    wire::fill_turn_request(state.view(seat), request.mutable_turn_request());
    request.mutable_turn_request()->set_move_time_ms(1000);
    request.mutable_turn_request()->set_time_bank_ms(1000);
    ASSERT_TRUE(s->send(request));
  }
  EXPECT_TRUE(read_one(a).has_play());
  EXPECT_TRUE(read_one(b).has_play());
  a.send(match_end_message());
  b.send(match_end_message());
  EXPECT_TRUE(a.finish().ok());
  EXPECT_TRUE(b.finish().ok());
  std::lock_guard<std::mutex> lock(meeting.mu);
  EXPECT_EQ(meeting.bots.size(), 2u);
}

// Shutting down refuses new matches and reports NOT_SERVING, but lets a running match end.
TEST(SdkServer, ShutdownDrainsRunningMatches) {
  Record r;
  TestServer server(recording(r));
  MatchStream running(*server.stub, std::chrono::seconds(10));
  ASSERT_TRUE(running.send(wrap(make_match_start(Format::kTwoPlayers, 0, "running"))));
  ASSERT_TRUE(read_one(running).has_hello());

  std::thread stopper([&] { server.server->shutdown(std::chrono::seconds(30)); });
  auto health = grpc::health::v1::Health::NewStub(connect(server.address));
  bool not_serving = false;
  for (int i = 0; i < 100 && !not_serving; ++i) {
    grpc::ClientContext context;
    context.set_deadline(deadline_in(std::chrono::seconds(1)));
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status st =
        health->Check(&context, grpc::health::v1::HealthCheckRequest(), &response);
    not_serving =
        st.ok() && response.status() == grpc::health::v1::HealthCheckResponse::NOT_SERVING;
    if (!not_serving) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(not_serving);
  {
    MatchStream late(*server.stub, std::chrono::seconds(10));
    late.send(wrap(make_match_start(Format::kTwoPlayers, 1, "late")));
    EXPECT_EQ(late.finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  }
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(running.send(match_end_message()));
  EXPECT_TRUE(running.finish().ok());
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(4));
}

TEST(SdkRun, HelpExitsZeroAndBadFlagsExitTwo) {
  auto factory = [](const MatchInfo&) -> std::unique_ptr<Bot> { return nullptr; };
  int depth = 1;
  auto extra = [&depth](CLI::App& app) { app.add_option("--depth", depth, "Search depth"); };
  auto run = [&](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return bot::run(static_cast<int>(argv.size()), argv.data(), {"t", "1"}, factory, extra);
  };
  EXPECT_EQ(run({"bot", "--help"}), 0);
  EXPECT_EQ(run({"bot"}), 2);                         // --listen is required
  EXPECT_EQ(run({"bot", "--listen", "nowhere"}), 2);  // neither unix: nor host:port
  EXPECT_EQ(run({"bot", "--listen", "unix:/nonexistent/b.sock", "--seed", "x"}), 2);
  EXPECT_EQ(run({"bot", "--listen", "unix:/nonexistent/b.sock", "--seed", "-3"}), 2);
  EXPECT_EQ(run({"bot", "--listen", "unix:/nonexistent/b.sock", "--depth", "x"}), 2);
  EXPECT_EQ(run({"bot", "--listen", "unix:/nonexistent/b.sock", "--bogus"}), 2);
  // Good flags but a socket that cannot be created: exit status 1, no serving.
  EXPECT_EQ(run({"bot", "--listen", "unix:/nonexistent/b.sock", "--depth", "4"}), 1);
  EXPECT_EQ(depth, 4);
}

}  // namespace
}  // namespace allfives::testing
