// `referee serve` and the human seat's server under attack: the crash on the event-stream
// write path (parallel altered /live/ requests that half-close at once), a fuzz of mixed,
// altered and cut-off requests at concurrency, idle and slow connections that must not lock
// anybody out, and large files. Each test starts its own server on a port of its own.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kReferee = ALLFIVES_REFEREE;
const std::string kGreedy = ALLFIVES_GREEDY_BOT;
const std::string kRandom = ALLFIVES_RANDOM_BOT;

// `referee serve DIR --listen 127.0.0.1:0`, its port read from what it prints.
struct Server {
  std::unique_ptr<Child> child;
  int port = 0;
};
Server serve(const std::vector<std::string>& dirs) {
  Server s;
  std::vector<std::string> argv = {kReferee, "serve"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--poll-ms", "20"});
  s.child = std::make_unique<Child>(argv);
  const std::string line = s.child->wait_for_line("Serving", 10s);
  std::string target;
  split_url(between(line + " ", "at ", " "), s.port, target);
  EXPECT_GT(s.port, 0) << s.child->output();
  return s;
}

// A folder with one finished match log (finished.jsonl) and one cut short (torn.jsonl).
const std::string& logs_dir() {
  static std::string dir;
  if (!dir.empty()) return dir;
  dir = temp_dir("hardening-logs");
  const RunResult r = run({kReferee, "match", "--seed", "3", "--log", dir + "/finished.jsonl",
                           "greedy=" + kGreedy, "random=" + kRandom},
                          60s);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(dir + "/finished.jsonl");
  std::ofstream(dir + "/torn.jsonl") << text.substr(0, text.size() / 2);
  return dir;
}

// Connects to 127.0.0.1:port; -1 if refused.
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// How a client leaves after sending its bytes.
enum class Leave { kHalfClose, kReadAll, kCloseAtOnce, kReset, kReadSomeThenClose };

// Sends `bytes`, leaves as `how` says, reading what comes for at most `limit`. Returns the
// bytes received.
size_t one_client(int port, const std::string& bytes, Leave how, std::chrono::milliseconds limit) {
  const int fd = connect_to(port);
  if (fd < 0) return 0;
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (how == Leave::kHalfClose) ::shutdown(fd, SHUT_WR);
  if (how == Leave::kReset) {
    linger l{1, 0};  // close() sends RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  size_t got = 0;
  if (how != Leave::kCloseAtOnce && how != Leave::kReset) {
    const auto end = Clock::now() + limit;
    char buf[16384];
    while (Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
      if (how == Leave::kReadSomeThenClose) break;
    }
  }
  ::close(fd);
  return got;
}

std::string get(const std::string& target, const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

// The crash as it was found: six clients at once send /live/ requests with altered step and
// seat numbers and half-close right after the request. Each stream's first write and the
// end of the client's input then race on the server's write path.
TEST(ServeHardeningTest, ParallelHalfClosedLiveRequestsDoNotCrashTheServer) {
  const std::string dir = logs_dir();
  Server s = serve({dir});
  ASSERT_GT(s.port, 0);
  const std::vector<std::string> targets = {
      "/live/0/finished.jsonl?from=0",       "/live/0/finished.jsonl?from=5&seat=1",
      "/live/0/finished.jsonl?from=99999",   "/live/0/torn.jsonl?from=0&seat=0",
      "/live/0/torn.jsonl?from=3",           "/live/0/finished.jsonl?seat=&from=1",
      "/live/0/finished.jsonl?from=2&seat=9"};
  std::atomic<int> sent{0};
  std::atomic<bool> dead{false};
  const auto end = Clock::now() + 15s;
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c)
    clients.emplace_back([&, c] {
      std::mt19937 rng(static_cast<unsigned>(c));
      while (Clock::now() < end && !dead && sent < 12000) {
        const std::string& t = targets[rng() % targets.size()];
        const Leave how = rng() % 4 == 0 ? Leave::kReadSomeThenClose : Leave::kHalfClose;
        one_client(s.port, get(t), how, 2s);
        ++sent;
      }
    });
  // The watcher: the server must stay up throughout.
  while (Clock::now() < end && sent < 12000) {
    if (!s.child->running()) {
      dead = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  for (auto& t : clients) t.join();
  ASSERT_TRUE(s.child->running()) << "the server died after " << sent << " requests:\n"
                                  << s.child->output();
  EXPECT_GT(sent, 500);
  EXPECT_EQ(http_get(s.port, "/").status, 200);
  EXPECT_EQ(s.child->interrupt(), 0) << s.child->output();
}

}  // namespace
}  // namespace allfives::e2e
