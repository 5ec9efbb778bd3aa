// A served ladder for the tests of its pages: a ladder made with `referee ladder` (users alice
// and bob, organiser boss), `referee serve` on it, and a client that keeps cookies and sends
// the forms as a browser does (urlencoded, or multipart/form-data with a file).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "serve/serve_util.h"

namespace allfives::e2e {

struct WebLadder {
  std::string dir;                            // the test's folder
  std::string ladder;                         // the ladder's folder inside it
  std::map<std::string, std::string> tokens;  // by user
  ServeProcess serve;
};
// `extra` is added to the ladder file (e.g. "max_upload_bytes: 1048576\n"); `serve_flags` to
// `referee serve`'s command line.
WebLadder make_web_ladder(const std::string& name, const std::string& extra = "",
                          const std::vector<std::string>& serve_flags = {});

// The README's Python bot (sdk/README.md), "first".
extern const char* const kFirstPy;

class WebClient {
 public:
  explicit WebClient(int port) : port_(port) {}
  HttpReply get(const std::string& target);
  HttpReply post_form(const std::string& target,
                      const std::vector<std::pair<std::string, std::string>>& fields);
  // The fields, then the file `content` as field "file" named `filename` (none if empty).
  HttpReply post_upload(const std::string& target,
                        const std::vector<std::pair<std::string, std::string>>& fields,
                        const std::string& filename, const std::string& content);
  // Any request: `head` holds extra header lines ("Name: value\r\n").
  HttpReply send(const std::string& method, const std::string& target, const std::string& head,
                 const std::string& body);
  // GET signin, then POST the token with the form's CSRF token; the final reply.
  HttpReply sign_in(const std::string& token);
  // The CSRF token in the last page fetched ("" if none).
  const std::string& csrf() const { return csrf_; }
  // Header lines ("Name: value\r\n") sent with every request of this client.
  void set_head(std::string head) { head_ = std::move(head); }
  std::map<std::string, std::string>& cookies() { return cookies_; }

 private:
  int port_;
  std::map<std::string, std::string> cookies_;
  std::string csrf_;
  std::string head_;
};

// Polls the upload at `location` (/ladder/R/upload/ID) until it is over; its JSON status.
std::string wait_upload(WebClient& c, const std::string& location,
                        std::chrono::milliseconds limit = std::chrono::seconds(90));

}  // namespace allfives::e2e
