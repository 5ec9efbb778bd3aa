// Helpers for the tests of `referee serve` and the human seat: a child process whose output
// lines can be waited for, and a raw HTTP/1.1 client over a plain socket (so a test can send
// exactly the bytes it means, "../" and all) with a server-sent-events reader.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace allfives::e2e {

// A program running in the background, its stdout and stderr read through a pipe.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();  // SIGKILL to its group if still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // Waits for a line of output containing `needle`; returns it, or "" at the deadline.
  std::string wait_for_line(const std::string& needle, std::chrono::milliseconds limit);
  // Waits for the exit (killing it at the deadline); returns the exit code, -1 if killed.
  int wait_exit(std::chrono::milliseconds limit);
  // SIGINT, then waits for the exit.
  int interrupt(std::chrono::milliseconds limit = std::chrono::seconds(10));
  bool running();
  pid_t pid() const { return pid_; }
  const std::string& output() const { return output_; }  // everything read so far

 private:
  void pump(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int status_ = -1;
  bool exited_ = false;
  std::string output_;
  size_t scanned_ = 0;
};

struct HttpReply {
  int status = 0;                              // 0: no valid answer
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

// Sends `raw` (a whole request) to 127.0.0.1:port and reads the answer until the server
// closes or `limit` passes.
HttpReply http_raw(int port, const std::string& raw,
                   std::chrono::milliseconds limit = std::chrono::seconds(10));
// GET `target` (sent as is) with Connection: close.
HttpReply http_get(int port, const std::string& target);
HttpReply http_post(int port, const std::string& target, const std::string& body);

// Reads the server-sent events of GET `target`, calling `on_message` with each message's data
// until it returns false, the server closes the stream, or `limit` passes. Returns the number
// of messages read.
int read_events(int port, const std::string& target,
                const std::function<bool(const std::string&)>& on_message,
                std::chrono::milliseconds limit);

// `referee serve ARGS... --listen 127.0.0.1:0 --poll-ms POLL`, its port read from what it
// prints (0 if it did not start).
struct ServeProcess {
  std::unique_ptr<Child> child;
  int port = 0;
  std::string base;  // "http://127.0.0.1:PORT"
};
ServeProcess start_serve(const std::string& referee, std::vector<std::string> args,
                         int poll_ms = 20);

// A TCP connection to 127.0.0.1:port; -1 if refused.
int connect_to_local(int port);

// `referee match --seed 9 --log LOG --serve 127.0.0.1:0 me=human greedy=BOT EXTRA...`, once
// it has printed its page's address.
struct HumanMatch {
  std::unique_ptr<Child> referee;
  int port = 0;
  std::string target;  // "/?token=..."
  std::string token;
  std::string log;
};
HumanMatch start_human_match(const std::string& referee, const std::string& bot,
                             const std::string& log, std::vector<std::string> extra = {});

// "http://127.0.0.1:PORT/..." -> PORT and the target; false if not such a URL.
bool split_url(const std::string& url, int& port, std::string& target);

// The text between the first `open` and the following `close`, from `from` on; "" if absent.
std::string between(const std::string& text, const std::string& open, const std::string& close,
                    size_t from = 0);

// The cells of every row of the HTML table with id `id` ("<table id=...>"), tags stripped,
// entities &amp; &lt; &gt; decoded.
std::vector<std::vector<std::string>> html_table(const std::string& html, const std::string& id);

// The rows of a text table as `referee standings` prints it: columns split on two or more
// spaces, leading spaces ignored.
std::vector<std::string> split_columns(const std::string& line);

}  // namespace allfives::e2e
