#include "serve/serve_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace allfives::e2e {

using Clock = std::chrono::steady_clock;

Child::Child(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    // A test or benchmark killed before its destructor runs must not leave the child behind.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(127);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  out_fd_ = fds[0];
  ::fcntl(out_fd_, F_SETFL, O_NONBLOCK);
}

Child::~Child() {
  if (pid_ > 0 && !exited_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

void Child::pump(int timeout_ms) {
  if (out_fd_ < 0) return;
  pollfd p{out_fd_, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n <= 0) break;
    output_.append(buf, static_cast<size_t>(n));
  }
}

std::string Child::wait_for_line(const std::string& needle, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (true) {
    size_t at = output_.find(needle, scanned_);
    if (at != std::string::npos) {
      const size_t start = output_.rfind('\n', at);
      const size_t stop = output_.find('\n', at);
      if (stop != std::string::npos) {
        scanned_ = stop + 1;
        return output_.substr(start == std::string::npos ? 0 : start + 1,
                              stop - (start == std::string::npos ? 0 : start + 1));
      }
    }
    if (Clock::now() > end) return "";
    pump(50);
  }
}

bool Child::running() {
  if (exited_ || pid_ <= 0) return false;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
  return !exited_;
}

int Child::wait_exit(std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (running()) {
    if (Clock::now() > end) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      exited_ = true;
      pump(0);
      return -1;
    }
    pump(20);
  }
  pump(0);
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

int Child::interrupt(std::chrono::milliseconds limit) {
  if (running()) ::kill(pid_, SIGINT);
  return wait_exit(limit);
}

int connect_to_local(int port) {
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

namespace {

bool send_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    const ssize_t n = ::send(fd, s.data() + at, s.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// Waits up to 100 ms for bytes from `fd` and appends them to `in`: 1 if some came, 0 if none,
// -1 at the end of the stream or on an error.
int receive_some(int fd, std::string& in) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 100) <= 0) return 0;
  char buf[65536];
  const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return -1;
  in.append(buf, static_cast<size_t>(n));
  return 1;
}

// Parses the status line and headers at the start of `raw`; returns the body's offset.
size_t parse_head(const std::string& raw, HttpReply& r) {
  const size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.compare(0, 9, "HTTP/1.1 ") != 0) return std::string::npos;
  r.status = std::atoi(raw.c_str() + 9);
  size_t at = raw.find("\r\n") + 2;
  while (at < end) {
    const size_t nl = raw.find("\r\n", at);
    const std::string line = raw.substr(at, nl - at);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      size_t v = colon + 1;
      while (v < line.size() && line[v] == ' ') ++v;
      r.headers[name] = line.substr(v);
    }
    at = nl + 2;
  }
  return end + 4;
}

}  // namespace

HttpReply http_raw(int port, const std::string& raw, std::chrono::milliseconds limit) {
  HttpReply r;
  const int fd = connect_to_local(port);
  if (fd < 0) return r;
  send_all(fd, raw);
  std::string in;
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    const int got = receive_some(fd, in);
    if (got < 0) break;
    if (got == 0) continue;
    // Stop at a complete answer with a Content-Length, even on a kept-alive connection.
    HttpReply head;
    const size_t body = parse_head(in, head);
    if (body != std::string::npos && head.headers.count("content-length") &&
        in.size() - body >= std::stoul(head.headers["content-length"]))
      break;
  }
  ::close(fd);
  const size_t body = parse_head(in, r);
  if (body == std::string::npos) return HttpReply{};
  r.body = in.substr(body);
  if (r.headers.count("content-length"))
    r.body.resize(std::min(r.body.size(), std::stoul(r.headers["content-length"])));
  return r;
}

HttpReply http_get(int port, const std::string& target) {
  return http_raw(port,
                  "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

HttpReply http_post(int port, const std::string& target, const std::string& body) {
  return http_raw(port, "POST " + target +
                            " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: "
                            "application/x-www-form-urlencoded\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body);
}

int read_events(int port, const std::string& target,
                const std::function<bool(const std::string&)>& on_message,
                std::chrono::milliseconds limit) {
  const int fd = connect_to_local(port);
  if (fd < 0) return 0;
  send_all(fd, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  std::string in;
  bool head_done = false;
  int count = 0;
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    const int got = receive_some(fd, in);
    if (got < 0) break;
    if (got == 0) continue;
    if (!head_done) {
      const size_t e = in.find("\r\n\r\n");
      if (e == std::string::npos) continue;
      if (in.find("text/event-stream") > e) break;  // not a stream
      in.erase(0, e + 4);
      head_done = true;
    }
    size_t e;
    while ((e = in.find("\n\n")) != std::string::npos) {
      const std::string block = in.substr(0, e);
      in.erase(0, e + 2);
      const size_t d = block.find("data: ");
      if (d == std::string::npos) continue;
      ++count;
      if (!on_message(block.substr(d + 6))) {
        ::close(fd);
        return count;
      }
    }
  }
  ::close(fd);
  return count;
}

ServeProcess start_serve(const std::string& referee, std::vector<std::string> args, int poll_ms) {
  ServeProcess s;
  args.insert(args.begin(), {referee, "serve"});
  args.insert(args.end(), {"--listen", "127.0.0.1:0", "--poll-ms", std::to_string(poll_ms)});
  s.child = std::make_unique<Child>(args);
  const std::string line = s.child->wait_for_line("Serving", std::chrono::seconds(10));
  std::string target;
  split_url(between(line + " ", "at ", " "), s.port, target);
  if (s.port > 0) s.base = "http://127.0.0.1:" + std::to_string(s.port);
  return s;
}

HumanMatch start_human_match(const std::string& referee, const std::string& bot,
                             const std::string& log, std::vector<std::string> extra) {
  HumanMatch h;
  h.log = log;
  std::vector<std::string> argv = {referee, "match",   "--seed",      "9",        "--log",
                                   h.log,   "--serve", "127.0.0.1:0", "me=human", "greedy=" + bot};
  argv.insert(argv.end(), extra.begin(), extra.end());
  h.referee = std::make_unique<Child>(argv);
  const std::string line = h.referee->wait_for_line("http://", std::chrono::seconds(10));
  if (line.find("http://") == std::string::npos) return h;
  split_url(line.substr(line.find("http://")), h.port, h.target);
  h.token = h.target.substr(h.target.find("token=") + 6);
  return h;
}

bool split_url(const std::string& url, int& port, std::string& target) {
  const std::string prefix = "http://127.0.0.1:";
  if (url.compare(0, prefix.size(), prefix) != 0) return false;
  port = std::atoi(url.c_str() + prefix.size());
  const size_t slash = url.find('/', prefix.size());
  target = slash == std::string::npos ? "/" : url.substr(slash);
  return port > 0;
}

std::string between(const std::string& text, const std::string& open, const std::string& close,
                    size_t from) {
  const size_t a = text.find(open, from);
  if (a == std::string::npos) return "";
  const size_t b = text.find(close, a + open.size());
  if (b == std::string::npos) return "";
  return text.substr(a + open.size(), b - a - open.size());
}

std::vector<std::vector<std::string>> html_table(const std::string& html, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  const std::string table = between(html, "<table id=\"" + id + "\">", "</table>");
  // (rows may carry attributes: <tr data-...>)
  size_t at = 0;
  while ((at = table.find("<tr", at)) != std::string::npos) {
    if (table[at + 3] != '>' && table[at + 3] != ' ') {
      ++at;
      continue;
    }
    at = table.find('>', at);  // past the row's attributes
    const size_t end = table.find("</tr>", at);
    const std::string row = table.substr(at, end - at);
    at = end;
    std::vector<std::string> cells;
    size_t c = 0;
    while ((c = row.find("<t", c)) != std::string::npos) {
      if (row.compare(c, 3, "<th") != 0 && row.compare(c, 3, "<td") != 0) {
        ++c;
        continue;
      }
      const size_t open_end = row.find('>', c);
      const size_t close = row.find("</t", open_end);
      std::string cell, raw = row.substr(open_end + 1, close - open_end - 1);
      bool in_tag = false;
      for (char ch : raw) {
        if (ch == '<') in_tag = true;
        if (!in_tag) cell += ch;
        if (ch == '>') in_tag = false;
      }
      for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
               {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
        size_t p = 0;
        while ((p = cell.find(from, p)) != std::string::npos) {
          cell.replace(p, from.size(), to);
          p += to.size();
        }
      }
      cells.push_back(cell);
      c = close + 1;
    }
    rows.push_back(cells);
  }
  return rows;
}

std::vector<std::string> split_columns(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  int spaces = 0;
  for (char c : line) {
    if (c == ' ') {
      ++spaces;
      continue;
    }
    if (spaces >= 2 && !cur.empty()) {
      out.push_back(cur);
      cur.clear();
    } else if (spaces == 1 && !cur.empty()) {
      cur += ' ';
    }
    spaces = 0;
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace allfives::e2e
