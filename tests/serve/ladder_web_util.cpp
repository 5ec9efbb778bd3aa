#include "serve/ladder_web_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e/e2e_util.h"
#include "serve/served_paths.h"

namespace allfives::e2e {

const char* const kFirstPy = R"(
"""first: plays the play that scores the most right now, else the first legal play."""
import sys

from allfives_bot import Bot, run


class First(Bot):
    def choose_play(self, view, clock):
        points = [view.points_after(play) for play in view.legal_plays]
        return points.index(max(points))  # an index into view.legal_plays


if __name__ == "__main__":
    sys.exit(run(First, "first", "1.0"))
)";

namespace {

// The token `referee ladder add-user` printed (the line after the first).
std::string add_user(const std::string& ladder, const std::string& name, bool organiser) {
  std::vector<std::string> argv = {kReferee, "ladder", "add-user", ladder, name};
  if (organiser) argv.push_back("--organiser");
  const RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string token;
  std::getline(lines, token);
  std::getline(lines, token);
  return token;
}

}  // namespace

WebLadder make_web_ladder(const std::string& name, const std::string& extra,
                          const std::vector<std::string>& serve_flags) {
  WebLadder w;
  w.dir = temp_dir(name);
  w.ladder = w.dir + "/L";
  std::ofstream(w.dir + "/l.txtpb") << "name: \"web\"\nformat: FORMAT_TWO_PLAYERS\n"
                                    << "move_time_ms: 300\ncheck_decisions: 10\n"
                                    << "placement_opponents: 2\nhistory_every: 2\n"
                                    << extra;
  const RunResult init = run({kReferee, "ladder", "init", w.ladder, w.dir + "/l.txtpb"});
  EXPECT_EQ(init.exit_code, 0) << init.output;
  w.tokens["alice"] = add_user(w.ladder, "alice", false);
  w.tokens["bob"] = add_user(w.ladder, "bob", false);
  w.tokens["boss"] = add_user(w.ladder, "boss", true);
  std::vector<std::string> args = {w.ladder};
  args.insert(args.end(), serve_flags.begin(), serve_flags.end());
  w.serve = start_serve(kReferee, args);
  EXPECT_GT(w.serve.port, 0);
  return w;
}

HttpReply WebClient::send(const std::string& method, const std::string& target,
                          const std::string& head, const std::string& body) {
  std::string cookie;
  for (const auto& [k, v] : cookies_) cookie += (cookie.empty() ? "" : "; ") + k + "=" + v;
  std::string raw = method + " " + target +
                    " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                    "\r\nConnection: close\r\n" + head + head_;
  if (!cookie.empty()) raw += "Cookie: " + cookie + "\r\n";
  if (method == "POST") raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  HttpReply r = http_raw(port_, raw + "\r\n" + body, std::chrono::seconds(30));
  // One Set-Cookie at most per answer (the server's way): name=value; attributes.
  if (const auto it = r.headers.find("set-cookie"); it != r.headers.end()) {
    const std::string& c = it->second;
    const size_t eq = c.find('='), semi = c.find(';');
    const std::string value = c.substr(eq + 1, semi - eq - 1);
    if (contains(c, "Max-Age=0"))
      cookies_.erase(c.substr(0, eq));
    else
      cookies_[c.substr(0, eq)] = value;
  }
  std::smatch m;
  if (std::regex_search(r.body, m, std::regex("name=\"csrf\" value=\"([0-9a-f]+)\""))) csrf_ = m[1];
  return r;
}

HttpReply WebClient::get(const std::string& target) {
  return send("GET", target, "", "");
}

HttpReply WebClient::post_form(const std::string& target,
                               const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string body;
  for (const auto& [k, v] : fields)
    body += (body.empty() ? "" : "&") + k + "=" + referee::serve::url_encode_path(v);
  return send("POST", target, "Content-Type: application/x-www-form-urlencoded\r\n", body);
}

HttpReply WebClient::post_upload(const std::string& target,
                                 const std::vector<std::pair<std::string, std::string>>& fields,
                                 const std::string& filename, const std::string& content) {
  const std::string b = "----allfivesTestBoundary7MA4YWxkTrZu0gW";
  std::string body;
  for (const auto& [k, v] : fields)
    body +=
        "--" + b + "\r\nContent-Disposition: form-data; name=\"" + k + "\"\r\n\r\n" + v + "\r\n";
  if (!filename.empty())
    body += "--" + b + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename +
            "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n";
  body += "--" + b + "--\r\n";
  return send("POST", target, "Content-Type: multipart/form-data; boundary=" + b + "\r\n", body);
}

HttpReply WebClient::sign_in(const std::string& token) {
  get("/ladder/0/signin");
  return post_form("/ladder/0/signin", {{"csrf", csrf_}, {"token", token}});
}

std::string wait_upload(WebClient& c, const std::string& location,
                        std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::string last;
  while (std::chrono::steady_clock::now() < end) {
    last = c.get(location + ".json").body;
    for (const char* over : {"\"passed\"", "\"refused\"", "\"failed\""})
      if (contains(last, std::string("\"state\":") + over)) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "the upload at " << location << " did not end: " << last;
  return last;
}

}  // namespace allfives::e2e
