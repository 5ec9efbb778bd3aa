#include "serve/ladder_accounts.h"

#include <vector>

#include "ladder/access_tokens.h"

namespace allfives::referee::serve {

int64_t RateLimit::take(const std::string& key, SteadyClock::time_point now) {
  if (events_.size() > 100000)
    std::erase_if(events_, [&](const auto& kv) {
      return kv.second.empty() || now - kv.second.back() >= window_;
    });
  std::deque<SteadyClock::time_point>& times = events_[key];
  while (!times.empty() && now - times.front() >= window_) times.pop_front();
  if (times.size() < limit_) {
    times.push_back(now);
    return 0;
  }
  const auto wait = times.front() + window_ - now;
  return std::max<int64_t>(1, std::chrono::ceil<std::chrono::seconds>(wait).count());
}

const LadderSession& LadderAccounts::open(int root, int64_t user, const std::string& name,
                                          bool organiser, SteadyClock::time_point now) {
  std::erase_if(sessions_, [&](const auto& kv) { return kv.second.expires <= now; });
  if (sessions_.size() >= kMaxSessions) {
    auto oldest = sessions_.begin();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second.expires < oldest->second.expires) oldest = it;
    sessions_.erase(oldest);
  }
  LadderSession s{make_token(), root, user, name, organiser, make_token(), now + kSessionLife};
  const std::string id = s.id;
  return sessions_[id] = std::move(s);
}

const LadderSession* LadderAccounts::find(int root, std::string_view cookie_header,
                                          SteadyClock::time_point now) {
  const std::string id = cookie_value(cookie_header, session_cookie_name(root));
  if (id.empty()) return nullptr;
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.root != root) return nullptr;
  if (it->second.expires <= now) {
    sessions_.erase(it);
    return nullptr;
  }
  return &it->second;
}

void LadderAccounts::close(const std::string& id) {
  sessions_.erase(id);
}

void LadderAccounts::close_user(int root, int64_t user) {
  std::erase_if(sessions_,
                [&](const auto& kv) { return kv.second.root == root && kv.second.user == user; });
}

std::string session_cookie_name(int root) {
  return "ladder" + std::to_string(root);
}
std::string sign_in_cookie_name(int root) {
  return "ladder" + std::to_string(root) + "_form";
}

std::string cookie_value(std::string_view header, std::string_view name) {
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string_view::npos) end = header.size();
    std::string_view pair = header.substr(at, end - at);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name)
      return std::string(pair.substr(eq + 1));
    at = end + 1;
  }
  return "";
}

std::string set_cookie(const std::string& name, const std::string& value, int root, bool secure,
                       std::chrono::seconds max_age) {
  std::string out = name;
  out += '=';
  out += value;
  out += "; Path=/ladder/" + std::to_string(root) + "/; HttpOnly; SameSite=Strict; Max-Age=";
  out += std::to_string(max_age.count());
  if (secure) out += "; Secure";
  return out;
}

bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace allfives::referee::serve
