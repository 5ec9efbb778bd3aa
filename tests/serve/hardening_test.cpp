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

#include <algorithm>
#include <map>
#include <mutex>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "e2e/e2e_util.h"
#include "serve/ladder_web_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// `referee serve DIRS... --listen 127.0.0.1:0`, its port read from what it prints.
ServeProcess serve(const std::vector<std::string>& args) {
  ServeProcess s = start_serve(kReferee, args);
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

// How a client leaves after sending its bytes.
enum class Leave { kHalfClose, kReadAll, kCloseAtOnce, kReset, kReadSomeThenClose };

// Sends `bytes`, leaves as `how` says, reading what comes for at most `limit`. Returns the
// first 64 KiB received.
std::string one_client(int port, const std::string& bytes, Leave how,
                       std::chrono::milliseconds limit) {
  const int fd = connect_to_local(port);
  if (fd < 0) return "";
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (how == Leave::kHalfClose) ::shutdown(fd, SHUT_WR);
  if (how == Leave::kReset) {
    linger l{1, 0};  // close() sends RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  std::string got;
  if (how != Leave::kCloseAtOnce && how != Leave::kReset) {
    const auto end = Clock::now() + limit;
    char buf[16384];
    while (Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      if (got.size() < 65536) got.append(buf, static_cast<size_t>(n));
      if (how == Leave::kReadSomeThenClose) break;
    }
  }
  ::close(fd);
  return got;
}

// The status of the first answer in `bytes`, 0 if none.
int status_of(const std::string& bytes) {
  if (bytes.compare(0, 9, "HTTP/1.1 ") != 0 || bytes.size() < 12) return 0;
  return std::atoi(bytes.c_str() + 9);
}

// Lets this process hold `n` sockets (the soft limit may be 1024).
void allow_descriptors(rlim_t n) {
  rlimit l{};
  ::getrlimit(RLIMIT_NOFILE, &l);
  if (l.rlim_cur < n) {
    l.rlim_cur = std::min(n, l.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &l);
  }
  ::getrlimit(RLIMIT_NOFILE, &l);
  ASSERT_GE(l.rlim_cur, n) << "the test needs " << n << " file descriptors";
}

// The server's peak resident memory (VmHWM), in KiB.
long peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

std::string get(const std::string& target, const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

// The crash as it was found: six clients at once send /live/ requests with altered step and
// seat numbers and half-close right after the request. Each stream's first write and the
// end of the client's input then race on the server's write path.
TEST(ServeHardeningTest, ParallelHalfClosedLiveRequestsDoNotCrashTheServer) {
  const std::string dir = logs_dir();
  ServeProcess s = serve({dir});
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

// ---------------------------------------------------------------------------------------
// The fuzz: requests of every kind the servers answer, altered at random (bytes flipped,
// inserted, cut, lines doubled, numbers changed, requests glued together), sent by several
// clients at once that leave in every way a client can (half-close, read all, close at once,
// reset, read a little and go). The server must stay up and answer only with statuses a
// client could have caused. Bounded here; ALLFIVES_SERVE_FUZZ_SECONDS=600 runs it longer
// (docs/SERVE.md), ALLFIVES_SERVE_FUZZ_SEED picks another sequence.

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::string mutate(std::string r, std::mt19937& rng) {
  const auto pos = [&](size_t n) { return n ? rng() % n : 0; };
  switch (rng() % 8) {
    case 0:
      return r;
    case 1:
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n && !r.empty(); ++k)
        r[pos(r.size())] = static_cast<char>(rng());
      return r;
    case 2: {
      std::string junk;
      for (int k = 0, n = 1 + static_cast<int>(rng() % 20); k < n; ++k)
        junk += static_cast<char>(rng() % 4 ? "%./?&=\r\n :0123456789az"[rng() % 24] : rng());
      return r.insert(pos(r.size()), junk);
    }
    case 3:
      return r.substr(0, pos(r.size()));
    case 4: {
      const size_t at = pos(r.size());
      return r.erase(at, rng() % 12);
    }
    case 5: {  // a line (a header) twice
      const size_t a = r.find("\r\n");
      const size_t b = a == std::string::npos ? a : r.find("\r\n", a + 2);
      if (b == std::string::npos) return r;
      return r.insert(a + 2, r.substr(a + 2, b - a));
    }
    case 6: {  // the first number after '=' replaced
      const size_t eq = r.find('=');
      if (eq == std::string::npos) return r;
      size_t end = eq + 1;
      while (end < r.size() && r[end] >= '0' && r[end] <= '9') ++end;
      const char* numbers[] = {"-1", "0", "99999999999", "1e9", "", "%30", "7"};
      return r.replace(eq + 1, end - eq - 1, numbers[rng() % 7]);
    }
    default:  // pipelined: another request right behind
      return r + (rng() % 2 ? r : get("/"));
  }
}

struct FuzzResult {
  int requests = 0;
  std::map<int, int> statuses;  // status -> answers (0: no answer)
};

// `clients` threads send altered requests from `corpus` to `port` for `seconds`, while
// `alive` holds.
FuzzResult fuzz(int port, const std::vector<std::string>& corpus, int clients, int seconds,
                unsigned seed, const std::function<bool()>& alive) {
  FuzzResult result;
  std::mutex mu;
  std::atomic<bool> stop{false};
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      std::mt19937 rng(seed * 1000 + static_cast<unsigned>(c));
      while (!stop && Clock::now() < end) {
        const std::string req = mutate(corpus[rng() % corpus.size()], rng);
        // Half-closing right after the request (what broke the event-stream write path) is
        // a third of the leaving; the other ways share the rest.
        const Leave how = rng() % 3 == 0 ? Leave::kHalfClose : static_cast<Leave>(1 + rng() % 4);
        const std::string got = one_client(port, req, how, 150ms);
        std::lock_guard lock(mu);
        ++result.requests;
        ++result.statuses[status_of(got)];
      }
    });
  while (Clock::now() < end && alive()) std::this_thread::sleep_for(20ms);
  stop = true;
  for (auto& t : threads) t.join();
  return result;
}

std::string describe(const FuzzResult& r) {
  std::string out = std::to_string(r.requests) + " requests;";
  for (const auto& [status, n] : r.statuses) {
    out += ' ';
    out += status ? std::to_string(status) : std::string("no answer");
    out += ": " + std::to_string(n);
  }
  return out;
}

TEST(ServeHardeningTest, FuzzedRequestsAtConcurrencyNeverCrashTheServer) {
  const std::string dir = logs_dir();
  ServeProcess s = serve({dir});
  ASSERT_GT(s.port, 0);
  const std::string form = "Content-Type: application/x-www-form-urlencoded\r\n";
  const std::vector<std::string> corpus = {
      get("/"),
      get("/t/0/"),
      get("/t/0/?bot=greedy&fault=any"),
      get("/standings/0/"),
      get("/m/0/finished.jsonl"),
      get("/m/0/finished.jsonl?seat=1"),
      get("/m/0/torn.jsonl?seat=0"),
      get("/live/0/finished.jsonl?from=0"),
      get("/live/0/torn.jsonl?from=2&seat=1"),
      get("/live/0/torn.jsonl?seat=&from=0"),
      get("/log/0/finished.jsonl"),
      get("/log/0/torn.jsonl", "Connection: keep-alive\r\n"),
      get("/m/0/../finished.jsonl"),
      get("/m/0/%2e%2e/x.jsonl"),
      "HEAD /log/0/finished.jsonl HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "HEAD /live/0/finished.jsonl?from=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "POST /t/0/ HTTP/1.1\r\nHost: 127.0.0.1\r\n" + form + "Content-Length: 5\r\n\r\nx=1&y",
      "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: "
      "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
      get("/", "Origin: http://evil.example\r\n"),
      "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n",
      "GET / HTTP/1.0\r\n\r\n",
      get("/", "X-Long: " + std::string(20000, 'a') + "\r\n"),
  };
  const int seconds = env_int("ALLFIVES_SERVE_FUZZ_SECONDS", 8);
  const unsigned seed = static_cast<unsigned>(env_int("ALLFIVES_SERVE_FUZZ_SEED", 1));
  const FuzzResult r = fuzz(s.port, corpus, 6, seconds, seed, [&] { return s.child->running(); });
  std::cout << "seed " << seed << ", " << seconds << " s: " << describe(r) << "\n";
  ASSERT_TRUE(s.child->running()) << describe(r) << "\n" << s.child->output();
  EXPECT_GT(r.requests, 200);
  EXPECT_EQ(r.statuses.count(500), 0u) << describe(r);
  for (const auto& [status, n] : r.statuses)
    EXPECT_TRUE(status == 0 || (status >= 200 && status < 500) || status == 503)
        << status << " in " << describe(r);
  EXPECT_EQ(http_get(s.port, "/").status, 200);
  EXPECT_EQ(s.child->interrupt(), 0) << s.child->output();
}

// The resident memory of process `pid` in KiB (VmRSS), 0 if unknown.
long rss_kib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

// A ladder's writes under the fuzz: uploads (multipart bodies whole, cut, with other
// boundaries, chunked, of absurd lengths) and sign-ins, with a real session's cookie and CSRF
// token so that the altered requests reach the parsers. No crash, no 500, memory flat, and no
// upload's file left behind once the server stops.
TEST(ServeHardeningTest, FuzzedUploadsAndSignInsToALadderNeverCrashTheServer) {
  WebLadder w = make_web_ladder("fuzz-ladder", "submissions_per_hour: 100000\n");
  ASSERT_GT(w.serve.port, 0);
  WebClient alice(w.serve.port);
  ASSERT_EQ(alice.sign_in(w.tokens["alice"]).status, 303);
  alice.get("/ladder/0/upload");
  const std::string session = "Cookie: ladder0=" + alice.cookies()["ladder0"] + "\r\n";
  const std::string b = "XyZzy42";
  const auto part = [&](const std::string& name, const std::string& extra,
                        const std::string& value) {
    return "--" + b + "\r\nContent-Disposition: form-data; name=\"" + name + "\"" + extra +
           "\r\n\r\n" + value + "\r\n";
  };
  const std::string form = part("csrf", "", alice.csrf()) + part("bot", "", "fuzz") +
                           part("file", "; filename=\"x.tar.gz\"", "not an archive");
  const auto post = [&](const std::string& target, const std::string& head,
                        const std::string& body) {
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + head +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  const std::string multipart = "Content-Type: multipart/form-data; boundary=" + b + "\r\n";
  WebClient stranger(w.serve.port);
  stranger.get("/ladder/0/signin");
  const std::string sign_in_cookie =
      "Cookie: ladder0_form=" + stranger.cookies()["ladder0_form"] + "\r\n";
  const std::vector<std::string> corpus = {
      post("/ladder/0/upload", session + multipart, form + "--" + b + "--\r\n"),
      post("/ladder/0/upload", session + multipart, form),
      post("/ladder/0/upload", session + multipart, "--" + b + "\r\n\r\n--" + b + "--"),
      post("/ladder/0/upload", session + "Content-Type: multipart/form-data; boundary=\r\n", form),
      post("/ladder/0/upload", session + multipart,
           part("file", "; filename=\"../../x\"", "x") + "--" + b + "--\r\n"),
      "POST /ladder/0/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n" + session + multipart +
          "Transfer-Encoding: chunked\r\n\r\n10\r\n" + form.substr(0, 16) + "\r\n0\r\n\r\n",
      "POST /ladder/0/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n" + session + multipart +
          "Content-Length: 99999999999999\r\n\r\n--",
      post("/ladder/0/upload", multipart, form + "--" + b + "--\r\n"),
      post("/ladder/0/signin",
           sign_in_cookie + "Content-Type: application/x-www-form-urlencoded\r\n",
           "csrf=" + stranger.csrf() + "&token=1.0123456789abcdef0123456789abcdef"),
      post("/ladder/0/signout", session, "csrf=" + alice.csrf()),
      post("/ladder/0/admin/retire", session, "csrf=" + alice.csrf() + "&version=fuzz@1"),
      get("/ladder/0/upload", session),
      get("/ladder/0/upload/0123456789abcdef.json", session),
      get("/ladder/0/", "Cookie: " + std::string(8000, ';') + "ladder0=x\r\n"),
      get("/ladder/0/",
          "Cookie: ladder0=\r\nCookie: ladder0=" + alice.cookies()["ladder0"] + "\r\n"),
  };
  const int seconds = env_int("ALLFIVES_SERVE_FUZZ_SECONDS", 8);
  const unsigned seed = static_cast<unsigned>(env_int("ALLFIVES_SERVE_FUZZ_SEED", 1));
  const auto alive = [&] { return w.serve.child->running(); };
  const FuzzResult warm = fuzz(w.serve.port, corpus, 6, 2, seed, alive);
  const long before = rss_kib(w.serve.child->pid());
  const FuzzResult r = fuzz(w.serve.port, corpus, 6, seconds, seed + 1, alive);
  const long after = rss_kib(w.serve.child->pid());
  std::cout << "seed " << seed << ", " << seconds << " s: " << describe(r) << "; RSS " << before
            << " -> " << after << " KiB\n";
  ASSERT_TRUE(w.serve.child->running()) << describe(r) << "\n" << w.serve.child->output();
  EXPECT_GT(r.requests + warm.requests, 200);
  for (const auto& [status, n] : r.statuses)
    EXPECT_TRUE(status == 0 || (status >= 200 && status < 500) || status == 503)
        << status << " in " << describe(r);
  EXPECT_LT(after - before, 16 * 1024) << "memory grew under the fuzz";
  EXPECT_EQ(http_get(w.serve.port, "/ladder/0/").status, 200);
  EXPECT_EQ(w.serve.child->interrupt(std::chrono::seconds(60)), 0) << w.serve.child->output();
  for (const auto& e : std::filesystem::directory_iterator(w.ladder + "/bots")) {
    const std::string n = e.path().filename().string();
    EXPECT_FALSE(n.starts_with(".body-") || n.starts_with(".incoming-")) << n << " left behind";
  }
}

TEST(ServeHardeningTest, FuzzedRequestsToAHumanSeatNeverCrashTheReferee) {
  HumanMatch h =
      start_human_match(kReferee, kGreedy, temp_dir("hardening-human-fuzz") + "/human.jsonl");
  ASSERT_GT(h.port, 0) << h.referee->output();
  const std::string t = "token=" + h.token;
  const std::string form = "Content-Type: application/x-www-form-urlencoded\r\n";
  const auto post = [&](const std::string& target, const std::string& body) {
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + form +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  const std::vector<std::string> corpus = {
      get("/?" + t),
      get("/events?" + t),
      get("/events?" + t, "Connection: keep-alive\r\n"),
      post("/play?" + t, "seq=3&play=0"),
      post("/play?" + t, "seq=12&play=1"),
      post("/play?" + t, "seq=x&play=y"),
      post("/play?token=" + std::string(32, '0'), "seq=1&play=0"),
      get("/?token="),
      get("/replay?" + t),
      "HEAD /?" + t + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      get("/events?" + t, "Origin: http://evil.example\r\n"),
  };
  // The person's seat waits for its page; the fuzz opens it (and plays at random).
  int exit_code = 0;
  const auto alive = [&] {
    if (h.referee->running()) return true;
    exit_code = h.referee->wait_exit(1s);
    return false;
  };
  const int seconds = env_int("ALLFIVES_SERVE_FUZZ_SECONDS", 5);
  const unsigned seed = static_cast<unsigned>(env_int("ALLFIVES_SERVE_FUZZ_SEED", 1));
  const FuzzResult r = fuzz(h.port, corpus, 6, seconds, seed, alive);
  std::cout << "seed " << seed << ", " << seconds << " s: " << describe(r) << "\n";
  // A match the fuzz's plays happened to finish ends the program normally; a crash does not.
  if (alive()) {
    EXPECT_EQ(http_get(h.port, "/?" + t).status, 200);
    EXPECT_EQ(h.referee->interrupt(), 130) << h.referee->output();
  } else {
    EXPECT_EQ(exit_code, 0) << describe(r) << "\n" << h.referee->output();
  }
  EXPECT_GT(r.requests, 100);
  EXPECT_EQ(r.statuses.count(500), 0u) << describe(r);
}

// ---------------------------------------------------------------------------------------
// Idle and slow connections.

// Opens `n` connections to `port` that never finish a request: every other one sends the
// start of a request head and then a byte now and then (a "slowloris"), the rest nothing.
class IdleCrowd {
 public:
  IdleCrowd(int port, int n) {
    for (int i = 0; i < n; ++i) {
      const int fd = connect_to_local(port);
      if (fd < 0) continue;
      if (i % 2) {
        const std::string start = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        ::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
        slow_.push_back(fd);
      }
      fds_.push_back(fd);
    }
    dribbler_ = std::thread([this] {
      while (!stop_) {
        for (const int fd : slow_) ::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        for (int k = 0; k < 10 && !stop_; ++k) std::this_thread::sleep_for(30ms);
      }
    });
  }
  ~IdleCrowd() {
    stop_ = true;
    dribbler_.join();
    for (const int fd : fds_) ::close(fd);
  }
  size_t size() const { return fds_.size(); }

 private:
  std::vector<int> fds_, slow_;
  std::atomic<bool> stop_{false};
  std::thread dribbler_;
};

// A request's status and how long it took.
std::pair<int, std::chrono::milliseconds> timed_get(int port, const std::string& target) {
  const auto start = Clock::now();
  const int status = http_get(port, target).status;
  return {status, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start)};
}

TEST(ServeHardeningTest, AThousandIdleConnectionsFromOneClientDoNotDenyANormalRequest) {
  allow_descriptors(2200);
  ServeProcess s = serve({logs_dir()});
  ASSERT_GT(s.port, 0);
  IdleCrowd crowd(s.port, 1000);
  ASSERT_EQ(crowd.size(), 1000u);
  // While all of them are held (a functional requirement: within 1 s, where a starved server
  // took 30 s; a normal answer takes milliseconds).
  for (const char* target : {"/", "/t/0/", "/m/0/finished.jsonl", "/", "/log/0/finished.jsonl"}) {
    const auto [status, took] = timed_get(s.port, target);
    EXPECT_EQ(status, 200) << target;
    EXPECT_LT(took.count(), 1000) << target;
  }
  // A live stream too.
  int messages = 0;
  const auto start = Clock::now();
  read_events(
      s.port, "/live/0/finished.jsonl?from=0", [&](const std::string&) { return ++messages < 1; },
      5s);
  EXPECT_EQ(messages, 1);
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_TRUE(s.child->running());
}

TEST(ServeHardeningTest, TheHumanSeatsPageIsReachableWhileIdleConnectionsCrowdIt) {
  allow_descriptors(2200);
  HumanMatch h =
      start_human_match(kReferee, kGreedy, temp_dir("hardening-human-idle") + "/human.jsonl");
  ASSERT_GT(h.port, 0) << h.referee->output();
  IdleCrowd crowd(h.port, 1000);
  const auto [status, took] = timed_get(h.port, h.target);
  EXPECT_EQ(status, 200);
  EXPECT_LT(took.count(), 1000);
  // Its events: the table arrives, and the match starts.
  int tables = 0;
  const auto start = Clock::now();
  read_events(
      h.port, "/events?token=" + h.token, [&](const std::string&) { return ++tables < 1; }, 5s);
  EXPECT_EQ(tables, 1);
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_EQ(h.referee->interrupt(), 130);
}

// ---------------------------------------------------------------------------------------
// Names, origins, methods.

TEST(ServeHardeningTest, OnlyRequestsNamingThisServerAreAnswered) {
  ServeProcess s = serve({logs_dir()});
  ASSERT_GT(s.port, 0);
  const std::string port = std::to_string(s.port);
  const auto with = [&](const std::string& headers) {
    return http_raw(s.port, "GET / HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n").status;
  };
  EXPECT_EQ(with("Host: 127.0.0.1:" + port + "\r\n"), 200);
  EXPECT_EQ(with("Host: localhost:" + port + "\r\n"), 200);
  EXPECT_EQ(with("Host: [::1]:" + port + "\r\n"), 200);
  EXPECT_EQ(with("Host: 127.0.0.1\r\n"), 200);
  // DNS rebinding: a page of evil.example whose name now points here.
  EXPECT_EQ(with("Host: evil.example\r\n"), 403);
  EXPECT_EQ(with("Host: evil.example:" + port + "\r\n"), 403);
  EXPECT_EQ(with("Host: 10.1.2.3:" + port + "\r\n"), 403);  // not an address served
  EXPECT_EQ(with("Host: 127.0.0.1:1\r\n"), 403);            // another port
  EXPECT_EQ(with("Host: 127.0.0.1:" + port + "\r\nOrigin: http://evil.example\r\n"), 403);
  EXPECT_EQ(with("Host: 127.0.0.1:" + port + "\r\nOrigin: null\r\n"), 403);
  EXPECT_EQ(with("Host: 127.0.0.1:" + port + "\r\nOrigin: http://127.0.0.1:" + port + "\r\n"), 200);
  const HttpReply refused = http_raw(s.port, "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n");
  EXPECT_NE(refused.body.find("--allow-host"), std::string::npos) << refused.body;

  // A name allowed on the command line.
  ServeProcess named = serve({logs_dir(), "--allow-host", "Arena.Example"});
  ASSERT_GT(named.port, 0);
  EXPECT_EQ(http_raw(named.port, "GET / HTTP/1.1\r\nHost: arena.example:" +
                                     std::to_string(named.port) + "\r\nConnection: close\r\n\r\n")
                .status,
            200);
}

TEST(ServeHardeningTest, ListeningBeyondLoopbackWarnsAndStillChecksNames) {
  Child child({kReferee, "serve", logs_dir(), "--listen", "0.0.0.0:0"});
  const std::string line = child.wait_for_line("Serving", 10s);
  ASSERT_FALSE(line.empty()) << child.output();
  EXPECT_NE(child.output().find("warning: 0.0.0.0:0 is reachable from other machines"),
            std::string::npos)
      << child.output();
  const int port = std::atoi(between(line, "0.0.0.0:", "/").c_str());
  ASSERT_GT(port, 0) << line;
  const auto with = [&](const std::string& host) {
    return http_raw(port, "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
        .status;
  };
  EXPECT_EQ(with("192.168.7.7:" + std::to_string(port)), 200);   // any address of this machine
  EXPECT_EQ(with("evil.example:" + std::to_string(port)), 403);  // never a name
  ServeProcess quiet = serve({logs_dir()});
  EXPECT_EQ(quiet.child->output().find("warning"), std::string::npos);
}

TEST(ServeHardeningTest, HeadIsAnsweredLikeGetWithoutTheBody) {
  ServeProcess s = serve({logs_dir()});
  ASSERT_GT(s.port, 0);
  for (const std::string target : {"/", "/t/0/", "/m/0/finished.jsonl", "/log/0/finished.jsonl"}) {
    HttpReply full = http_get(s.port, target);
    HttpReply head = http_raw(
        s.port, "HEAD " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(head.status, 200) << target;
    EXPECT_EQ(head.headers["content-length"], std::to_string(full.body.size())) << target;
    EXPECT_EQ(head.headers["content-type"], full.headers["content-type"]) << target;
    EXPECT_TRUE(head.body.empty()) << target;
  }
  HttpReply stream =
      http_raw(s.port, "HEAD /live/0/torn.jsonl?from=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 3s);
  EXPECT_EQ(stream.status, 200);
  EXPECT_EQ(stream.headers["content-type"], "text/event-stream; charset=utf-8");
  EXPECT_EQ(http_get(s.port, "/missing").status, 404);
}

// ---------------------------------------------------------------------------------------
// Large files and links.

TEST(ServeHardeningTest, LargeFilesAreStreamedOrRefusedWithBoundedMemory) {
  const std::string dir = temp_dir("hardening-large");
  // 300 MB of nothing (sparse): not a log.
  {
    std::ofstream(dir + "/big.jsonl");
    ASSERT_EQ(::truncate((dir + "/big.jsonl").c_str(), 300'000'000), 0);
  }
  // A finished match whose log was made 20 MiB long in the middle: its result is found at its
  // end, its page is refused, the file itself is served whole.
  const std::string finished = read_file(logs_dir() + "/finished.jsonl");
  const size_t header_end = finished.find('\n') + 1;
  const size_t end_at = finished.find("{\"match_end\"");
  ASSERT_NE(end_at, std::string::npos);
  const std::string middle = finished.substr(header_end, end_at - header_end);
  {
    std::ofstream out(dir + "/long.jsonl", std::ios::binary);
    out << finished.substr(0, header_end);
    for (size_t written = 0; written < (size_t{20} << 20); written += middle.size()) out << middle;
    out << finished.substr(end_at);
  }
  const off_t long_size = static_cast<off_t>(std::filesystem::file_size(dir + "/long.jsonl"));
  ServeProcess s = serve({dir});
  ASSERT_GT(s.port, 0);
  const HttpReply listing = http_get(s.port, "/t/0/");
  const auto rows = html_table(listing.body, "matches");
  ASSERT_EQ(rows.size(), 3u) << listing.body;
  EXPECT_EQ(rows[1][0], "big");
  EXPECT_EQ(rows[1][2], "not a match log");
  EXPECT_EQ(rows[2][0], "long");
  EXPECT_NE(rows[2][2].find(" won "), std::string::npos) << rows[2][2];
  EXPECT_NE(rows[2][5].find("too large to draw (2"), std::string::npos) << rows[2][5];
  EXPECT_EQ(listing.body.find("playing now"), std::string::npos);
  const HttpReply page = http_get(s.port, "/m/0/long.jsonl");
  EXPECT_EQ(page.status, 413);
  EXPECT_NE(page.body.find("/log/0/long.jsonl"), std::string::npos) << page.body;
  EXPECT_EQ(http_get(s.port, "/live/0/long.jsonl?from=0").status, 413);
  // The files themselves, whole, three at once: memory stays bounded.
  std::vector<std::thread> readers;
  std::vector<size_t> got(4, 0);
  for (int k = 0; k < 4; ++k)
    readers.emplace_back([&, k] {
      const std::string target = k == 3 ? "/log/0/long.jsonl" : "/log/0/big.jsonl";
      const int fd = connect_to_local(s.port);
      const std::string req = get(target, "Connection: close\r\n");
      ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
      char buf[1 << 16];
      std::string head;
      while (true) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        if (head.size() < 512) head.append(buf, static_cast<size_t>(std::min<ssize_t>(n, 512)));
        got[static_cast<size_t>(k)] += static_cast<size_t>(n);
      }
      ::close(fd);
      got[static_cast<size_t>(k)] -= head.find("\r\n\r\n") + 4;
    });
  for (auto& t : readers) t.join();
  for (int k = 0; k < 3; ++k) EXPECT_EQ(got[static_cast<size_t>(k)], 300'000'000u);
  EXPECT_EQ(got[3], static_cast<size_t>(long_size));
  const long peak = peak_rss_kib(s.child->pid());
  std::cout << "server peak RSS " << peak << " KiB\n";
  EXPECT_LT(peak, 100 * 1024) << "serving 920 MB must not hold them in memory";
  EXPECT_EQ(s.child->interrupt(), 0);
}

TEST(ServeHardeningTest, ListingsNeverReadThroughLinksThatLeaveTheFolder) {
  const std::string base = temp_dir("hardening-links");
  const std::string served = base + "/served";
  std::filesystem::create_directories(served + "/matches");
  std::filesystem::create_directories(base + "/outside");
  // A real match log outside, with names found nowhere else; and an index naming them.
  const RunResult r = run({kReferee, "match", "--seed", "5", "--log", base + "/outside/o.jsonl",
                           "outsiderA=" + kGreedy, "outsiderB=" + kRandom});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ofstream(base + "/outside/index.jsonl")
      << "{\"match\":{\"ordinal\":0,\"match_id\":\"o\",\"seat_bots\":[\"outsiderC\","
         "\"outsiderD\"]},\"reason\":\"MATCH_END_REASON_TARGET\",\"winner_side\":0,"
         "\"scores\":[250,10],\"placements\":[1,2],\"fault_seat\":-1,\"log_file\":"
         "\"matches/o.jsonl\",\"hands_played\":3,\"format\":\"FORMAT_TWO_PLAYERS\","
         "\"tournament_name\":\"outsiderT\"}\n";
  std::filesystem::copy_file(logs_dir() + "/finished.jsonl", served + "/matches/mine.jsonl");
  std::filesystem::create_symlink(base + "/outside/o.jsonl", served + "/matches/out.jsonl");
  std::filesystem::create_symlink("/etc/passwd", served + "/matches/passwd.jsonl");
  std::filesystem::create_symlink(base + "/outside/index.jsonl", served + "/index.jsonl");
  std::filesystem::create_symlink(base + "/outside", served + "/linked");
  std::filesystem::create_symlink(served + "/matches/mine.jsonl", served + "/matches/alias.jsonl");
  ServeProcess s = serve({served});
  ASSERT_GT(s.port, 0);
  for (const std::string target : {"/", "/t/0/", "/standings/0/", "/t/0/linked/"}) {
    const HttpReply page = http_get(s.port, target);
    for (const char* secret : {"outsider", "passwd", "linked"})
      EXPECT_EQ(page.body.find(secret), std::string::npos) << target << " shows " << secret;
  }
  // The links that stay inside are listed like the files they name.
  const auto rows = html_table(http_get(s.port, "/t/0/").body, "matches");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], "alias");
  EXPECT_EQ(rows[2][0], "mine");
}

}  // namespace
}  // namespace allfives::e2e
