#include "serve/http_text.h"

#include <nettle/base64.h>
#include <nettle/sha2.h>
#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace allfives::referee::serve {

bool split_host_port(const std::string& text, std::string& host, int& port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return false;
  host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) return false;
  port = 0;
  for (size_t i = colon + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    port = port * 10 + (text[i] - '0');
    if (port > 65535) return false;
  }
  return true;
}

namespace {

std::optional<boost::asio::ip::address> ip_of(const std::string& text) {
  boost::system::error_code ec;
  const auto a = boost::asio::ip::make_address(text, ec);
  if (ec) return std::nullopt;
  return a;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "Host: name[:port]" split; false if the port is malformed.
bool split_host_header(std::string_view value, std::string& name, int& port) {
  port = -1;
  std::string v = lower(value);
  if (!v.empty() && v.front() == '[') {  // [v6]:port
    const size_t close = v.find(']');
    if (close == std::string::npos) return false;
    name = v.substr(1, close - 1);
    v = v.substr(close + 1);
    if (v.empty()) return true;
    if (v[0] != ':') return false;
    v = v.substr(1);
  } else {
    const size_t colon = v.find(':');
    name = v.substr(0, colon);
    if (colon == std::string::npos) return !name.empty();
    v = v.substr(colon + 1);
  }
  if (v.empty() || v.size() > 5 || !std::all_of(v.begin(), v.end(), ::isdigit)) return false;
  port = std::stoi(v);
  return !name.empty();
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  if (lower(host) == "localhost") return true;
  const auto a = ip_of(host);
  return a && a->is_loopback();
}

bool host_allowed(std::string_view host_header, const HostPolicy& policy) {
  std::string name;
  int port = -1;
  if (!split_host_header(host_header, name, port)) return false;
  if (port >= 0 && port != policy.port) return false;
  if (name.back() == '.') name.pop_back();  // "localhost." is localhost
  if (is_loopback_host(name)) return true;
  if (std::find(policy.extra_names.begin(), policy.extra_names.end(), name) !=
      policy.extra_names.end())
    return true;
  const auto ip = ip_of(name);
  if (!ip) return false;  // a name nobody allowed
  const auto listened = ip_of(policy.listen_host);
  if (listened && listened->is_unspecified()) return true;
  return listened && *listened == *ip;
}

bool origin_allowed(std::string_view origin, const HostPolicy& policy) {
  constexpr std::string_view kHttp = "http://", kHttps = "https://";
  const std::string head = lower(origin.substr(0, kHttps.size()));
  const bool tls = head == kHttps;
  if (!tls && !head.starts_with(kHttp)) return false;
  const std::string_view rest = origin.substr(tls ? kHttps.size() : kHttp.size());
  if (rest.empty() || rest.find('/') != std::string_view::npos) return false;
  if (!tls) return host_allowed(rest, policy);
  // Pages over TLS come through a proxy in front, under a name the user allowed.
  const std::string name = lower(rest.substr(0, rest.find(':')));
  return std::find(policy.extra_names.begin(), policy.extra_names.end(), name) !=
         policy.extra_names.end();
}

bool percent_decode(std::string_view in, std::string& out, bool plus_is_space) {
  out.clear();
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      const int a = hex(in[i + 1]), b = hex(in[i + 2]);
      if (a < 0 || b < 0) return false;
      c = static_cast<char>(a * 16 + b);
      if (c == '\0') return false;
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    out += c;
  }
  return true;
}

std::string_view target_path(std::string_view target) {
  const size_t q = target.find('?');
  return q == std::string_view::npos ? target : target.substr(0, q);
}

namespace {
std::optional<std::string> find_query(std::string_view target, std::string_view key) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    const size_t eq = pair.find('=');
    const std::string_view k = pair.substr(0, eq);
    if (k == key) {
      std::string v;
      if (eq != std::string_view::npos && !percent_decode(pair.substr(eq + 1), v, true)) v.clear();
      return v;
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return std::nullopt;
}
}  // namespace

std::string query_value(std::string_view target, std::string_view key) {
  return find_query(target, key).value_or("");
}
bool query_has(std::string_view target, std::string_view key) {
  return find_query(target, key).has_value();
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Where `what` (lower case) next occurs in `s` from `from`, ignoring case; npos if nowhere.
size_t find_nocase(std::string_view s, std::string_view what, size_t from) {
  for (size_t i = from; i + what.size() <= s.size(); ++i)
    if (std::equal(what.begin(), what.end(), s.begin() + static_cast<std::ptrdiff_t>(i),
                   [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
      return i;
  return std::string_view::npos;
}

std::string sha256_base64(std::string_view text) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  std::string out(BASE64_ENCODE_RAW_LENGTH(SHA256_DIGEST_SIZE), '\0');
  base64_encode_raw(reinterpret_cast<char*>(out.data()), sizeof digest, digest);
  return out;
}

// sha256_base64 of an inline script, remembered: a page's scripts are the same text on every
// response, so each is hashed once. Bounded: a page that varies its scripts empties the memo.
std::string script_hash(std::string_view script) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::string> known;
  constexpr size_t kMaxScripts = 64;
  {
    std::lock_guard lock(mutex);
    if (const auto it = known.find(std::string(script)); it != known.end()) return it->second;
  }
  std::string hash = sha256_base64(script);
  std::lock_guard lock(mutex);
  if (known.size() >= kMaxScripts) known.clear();
  known.emplace(script, hash);
  return hash;
}

}  // namespace

std::string content_security_policy(std::string_view html) {
  std::string scripts;
  for (size_t at = find_nocase(html, "<script", 0); at != std::string_view::npos;
       at = find_nocase(html, "<script", at + 1)) {
    const size_t open_end = html.find('>', at);
    if (open_end == std::string_view::npos) break;
    const std::string tag = lower(html.substr(at, open_end - at));
    const size_t close = find_nocase(html, "</script", open_end);
    if (close == std::string_view::npos) break;
    if (tag.find("application/json") != std::string::npos) continue;  // data, never run
    scripts += " 'sha256-" + script_hash(html.substr(open_end + 1, close - open_end - 1)) + "'";
  }
  return "default-src 'none'; script-src" + (scripts.empty() ? std::string(" 'none'") : scripts) +
         "; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
         "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
}

}  // namespace allfives::referee::serve
