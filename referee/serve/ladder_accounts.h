// Who is signed in to the ladders `referee serve` shows, and how often anyone may try: a
// session per sign-in (a random id in an HttpOnly, SameSite=Strict cookie, kept in memory so
// a restart signs everyone out), each with its own CSRF token that every form sends back, and
// sliding-window limits on sign-in attempts and submissions. Touched only on the server's
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>

namespace allfives::referee::serve {

using SteadyClock = std::chrono::steady_clock;

struct LadderSession {
  std::string id;  // the cookie's value
  int root = 0;    // the served ladder (R of /ladder/R/)
  int64_t user = 0;
  std::string name;
  bool organiser = false;
  std::string csrf;  // sent back by every form of this session
  SteadyClock::time_point expires;
};

// At most `limit` events per `window` for each key (an address, a user).
class RateLimit {
 public:
  RateLimit(size_t limit, std::chrono::seconds window) : limit_(limit), window_(window) {}
  // Records an event for `key` and returns 0 if one is allowed now; else records nothing and
  // returns the seconds until one is.
  int64_t take(const std::string& key, SteadyClock::time_point now);

 private:
  size_t limit_;
  std::chrono::seconds window_;
  std::map<std::string, std::deque<SteadyClock::time_point>> events_;
};

class LadderAccounts {
 public:
  static constexpr std::chrono::hours kSessionLife{8};
  static constexpr size_t kMaxSessions = 10000;  // the oldest is dropped beyond

  // A new session for `user` of ladder `root`.
  const LadderSession& open(int root, int64_t user, const std::string& name, bool organiser,
                            SteadyClock::time_point now);
  // The live session a request's Cookie header names for ladder `root`, or null.
  const LadderSession* find(int root, std::string_view cookie_header, SteadyClock::time_point now);
  void close(const std::string& id);
  // Ends every session of `user` (their token was reset).
  void close_user(int root, int64_t user);

 private:
  std::map<std::string, LadderSession> sessions_;
};

// The session cookie's name for ladder `root` ("ladder0"), and the pre-sign-in CSRF cookie's.
std::string session_cookie_name(int root);
std::string sign_in_cookie_name(int root);
// The value of cookie `name` in a Cookie header, "" if absent.
std::string cookie_value(std::string_view header, std::string_view name);
// A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/ladder/R/, Secure over TLS; a
// max_age of 0 deletes the cookie.
std::string set_cookie(const std::string& name, const std::string& value, int root, bool secure,
                       std::chrono::seconds max_age);
// Whether two secrets are equal, in time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace allfives::referee::serve
