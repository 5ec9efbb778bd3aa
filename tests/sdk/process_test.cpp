// The sample bots as real programs: started on a unix socket, probed for health, played
// against by the mini referee, and stopped with SIGTERM.
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "allfives/wire/convert.h"
#include "sdk_test_util.h"

extern char** environ;

namespace allfives::testing {
namespace {

// A child process that is always reaped: killed with SIGKILL if a test leaves it running.
// `env` ("NAME=value") comes before the test's own environment.
class Child {
 public:
  explicit Child(std::vector<std::string> args, std::vector<std::string> env = {}) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    for (char** e = environ; *e; ++e) envp.push_back(*e);
    envp.push_back(nullptr);
    if (::posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // The exit status, or -1 if the child is still running after `timeout`, or was killed.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

TEST(SdkProcess, GreedyBotPlaysAMatchAndExitsZeroOnSigterm) {
  TempDir dir;
  const std::string address = dir.socket("greedy.sock");
  Child bot({ALLFIVES_GREEDY_BOT, "--listen", address, "--seed", "3"});
  ASSERT_TRUE(bot.started());
  ASSERT_TRUE(wait_until_serving(address, std::chrono::seconds(15)));
  auto stub = v1::Bot::NewStub(connect(address));
  const MatchResult m =
      referee_match({stub.get(), stub.get(), stub.get()}, Format::kThreePlayers, 21, "g1");
  ASSERT_EQ(m.error, "");
  for (const grpc::Status& st : m.statuses) EXPECT_TRUE(st.ok()) << st.error_message();
  bot.signal(SIGTERM);
  EXPECT_EQ(bot.wait_exit(std::chrono::seconds(10)), 0);
}

TEST(SdkProcess, SigintDuringAMatchStopsTheBotWithStatusZero) {
  TempDir dir;
  const std::string address = dir.socket("r.sock");
  Child bot({ALLFIVES_RANDOM_BOT, "--listen", address});
  ASSERT_TRUE(bot.started());
  ASSERT_TRUE(wait_until_serving(address, std::chrono::seconds(15)));
  auto stub = v1::Bot::NewStub(connect(address));
  MatchStream s(*stub, std::chrono::seconds(10));  // a match left open on purpose
  ASSERT_TRUE(s.send(wrap(make_match_start(Format::kTwoPlayers, 0, "open"))));
  v1::BotMessage hello;
  ASSERT_TRUE(s.stream->Read(&hello));
  bot.signal(SIGINT);
  EXPECT_EQ(bot.wait_exit(std::chrono::seconds(10)), 0);
  EXPECT_FALSE(s.finish().ok());  // the open match was cut off
}

// The greedy bot takes the play that scores most, and between equal scores the heavier tile:
// ends 2 and 4 (the line is 4-2); 1-2 on the left counts 1 + 4 = 5 and 3-4 on the right
// counts 2 + 3 = 5, so it sheds the 3-4 although 1-2 comes first in legal order.
TEST(SdkProcess, GreedyBotPrefersTheHeavierTileBetweenEqualScores) {
  Position p;
  p.config = Config::standard(Format::kTwoPlayers);
  p.line[0] = LinePlay{Tile::of(4, 2), 0, End::kLeft};
  p.line_size = 1;
  p.seat_to_move = 1;
  TileSet mine;
  for (auto [a, b] : std::initializer_list<std::pair<int, int>>{
           {1, 2}, {3, 4}, {0, 0}, {1, 1}, {5, 5}, {6, 6}, {0, 1}})
    mine.add(Tile::of(a, b));
  p.hands[1] = mine;
  TileSet rest = TileSet::all() - mine;
  rest.remove(Tile::of(4, 2));
  int dealt = 0;
  for (Tile t : rest) {
    if (dealt < 6) {
      p.hands[0].add(t);
    } else {
      p.boneyard[p.boneyard_size++] = t;
    }
    ++dealt;
  }
  State state = State::new_match(p.config, 1);
  std::string error;
  ASSERT_TRUE(State::from_position(p, 1, state, &error)) << error;
  ASSERT_EQ(state.legal_plays().size(), 2);

  TempDir dir;
  const std::string address = dir.socket("g.sock");
  Child bot({ALLFIVES_GREEDY_BOT, "--listen", address});
  ASSERT_TRUE(bot.started());
  ASSERT_TRUE(wait_until_serving(address, std::chrono::seconds(15)));
  auto stub = v1::Bot::NewStub(connect(address));
  MatchStream s(*stub, std::chrono::seconds(10));
  ASSERT_TRUE(s.send(wrap(make_match_start(Format::kTwoPlayers, 1, "tie"))));
  v1::BotMessage answer;
  ASSERT_TRUE(s.stream->Read(&answer) && answer.has_hello());
  v1::RefereeMessage turn;
  v1::HandStart* h = turn.mutable_turn_request()->add_events()->mutable_hand_start();
  wire::add_tiles(mine, h->mutable_your_tiles());
  h->set_opener_seat(0);
  h->set_open_rule(v1::OPEN_RULE_WINNER_CHOOSES);
  wire::fill_turn_request(state.view(1), turn.mutable_turn_request());
  ASSERT_TRUE(s.send(turn));
  ASSERT_TRUE(s.stream->Read(&answer) && answer.has_play());
  Play play;
  ASSERT_TRUE(wire::from_proto(answer.play().play(), false, play, &error)) << error;
  EXPECT_EQ(play, (Play{Tile::of(3, 4), End::kRight})) << to_string(play);
  v1::RefereeMessage end;
  end.mutable_match_end()->set_reason(v1::MATCH_END_REASON_ABORTED);
  ASSERT_TRUE(s.send(end));
  EXPECT_TRUE(s.finish().ok());
  bot.signal(SIGTERM);
  EXPECT_EQ(bot.wait_exit(std::chrono::seconds(10)), 0);
}

// Same --seed, same match id and seat: the same plays, whatever ran before.
TEST(SdkProcess, RandomBotRepeatsItselfForTheSameSeedAndMatch) {
  TempDir dir;
  const std::string address = dir.socket("r.sock");
  Child bot({ALLFIVES_RANDOM_BOT, "--listen", address, "--seed", "99"});
  ASSERT_TRUE(bot.started());
  ASSERT_TRUE(wait_until_serving(address, std::chrono::seconds(15)));
  auto stub = v1::Bot::NewStub(connect(address));
  const std::vector<v1::Bot::Stub*> stubs(2, stub.get());
  const MatchResult first = referee_match(stubs, Format::kTwoPlayers, 5, "same");
  const MatchResult other = referee_match(stubs, Format::kTwoPlayers, 5, "other");
  const MatchResult again = referee_match(stubs, Format::kTwoPlayers, 5, "same");
  ASSERT_EQ(first.error, "");
  ASSERT_EQ(other.error, "");
  ASSERT_EQ(again.error, "");
  EXPECT_EQ(first.plays, again.plays);
  bot.signal(SIGTERM);
  EXPECT_EQ(bot.wait_exit(std::chrono::seconds(10)), 0);
}

// The system call each thread of `pid` is blocked in (/proc/PID/task/TID/syscall), or an empty
// list while any thread runs or is between calls (a reading of threads at rest is wanted).
std::vector<long> blocked_calls(pid_t pid) {
  std::vector<long> calls;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "syscall");
    std::string first;
    if (!(in >> first) || first == "running" || first == "-1") return {};
    calls.push_back(std::strtol(first.c_str(), nullptr, 10));
  }
  return calls;
}

// How many threads of `pid`, once all are at rest, wait in epoll: polled up to `timeout`;
// -1 if the threads were never all at rest.
int threads_in_epoll(pid_t pid, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    const std::vector<long> calls = blocked_calls(pid);
    if (!calls.empty()) {
      int n = 0;
      for (long c : calls) {
#ifdef SYS_epoll_wait
        if (c == SYS_epoll_wait) ++n;
#endif
        if (c == SYS_epoll_pwait || c == SYS_epoll_pwait2) ++n;
      }
      return n;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

// An SDK bot waits for the referee's next message in poll(2) (gRPC's poll engine), which
// watches for room to write only while a write waits; in epoll gRPC watches for it always, and
// the referee's every read of an answer would wake the bot for nothing (bench/README.md). The
// author's own GRPC_POLL_STRATEGY is kept: with epoll1 a thread waits in epoll, which also
// shows the check can see one.
TEST(SdkProcess, BotWaitsForTheRefereeInPollUnlessItsAuthorChoseAnEngine) {
  TempDir dir;
  const std::string address = dir.socket("r.sock");
  Child bot({ALLFIVES_RANDOM_BOT, "--listen", address});
  const std::string chosen_address = dir.socket("epoll.sock");
  Child chosen({ALLFIVES_RANDOM_BOT, "--listen", chosen_address}, {"GRPC_POLL_STRATEGY=epoll1"});
  ASSERT_TRUE(bot.started());
  ASSERT_TRUE(chosen.started());
  for (const std::string* a : {&address, &chosen_address}) {
    ASSERT_TRUE(wait_until_serving(*a, std::chrono::seconds(15)));
    auto stub = v1::Bot::NewStub(connect(*a));
    ASSERT_EQ(referee_match({stub.get(), stub.get()}, Format::kTwoPlayers, 7, "idle").error, "");
  }
  EXPECT_EQ(threads_in_epoll(bot.pid(), std::chrono::seconds(10)), 0);
  EXPECT_GE(threads_in_epoll(chosen.pid(), std::chrono::seconds(10)), 1);
  bot.signal(SIGTERM);
  chosen.signal(SIGTERM);
  EXPECT_EQ(bot.wait_exit(std::chrono::seconds(10)), 0);
  EXPECT_EQ(chosen.wait_exit(std::chrono::seconds(10)), 0);
}

}  // namespace
}  // namespace allfives::testing
