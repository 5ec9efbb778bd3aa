// The text of HTTP requests as the server and the pages read it: host:port pairs, which Host
// and Origin headers a server accepts, percent-decoding, query values, HTML escaping. Pure
// functions, tested on their own (tests/serve/url_test.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allfives::referee::serve {

// Splits "host:port" (IPv6 as "[::1]:port"). Returns false if it is not one.
bool split_host_port(const std::string& text, std::string& host, int& port);

// Whether `host` (an IP address as text, or "localhost") is a loopback address.
bool is_loopback_host(const std::string& host);

// Which names a Host header may carry (DNS rebinding: a page of evil.example whose name
// resolves to this machine sends "Host: evil.example", which must be refused).
struct HostPolicy {
  std::string listen_host;  // the address listened on, as text ("127.0.0.1", "::", "0.0.0.0")
  int port = 0;             // the port listened on
  std::vector<std::string> extra_names;  // names a user allowed (--allow-host), lower case
};

// A Host header's value ("127.0.0.1:8080", "[::1]:8080", "localhost") is accepted if its port,
// when given, is the one served and its name is: a loopback name (localhost, 127.0.0.0/8,
// ::1); the address listened on; any IP address when listening on every address (0.0.0.0,
// ::), since a rebinding page can only send a name; or one of the extra names.
bool host_allowed(std::string_view host_header, const HostPolicy& policy);
// An Origin header's value ("http://127.0.0.1:8080") is accepted if it is http:// followed
// by an accepted host, or https:// followed by one of the extra names (a TLS proxy in front).
// "null" and every other scheme are refused.
bool origin_allowed(std::string_view origin, const HostPolicy& policy);

// "%2e%2E" -> "..": percent-decoding of a URL path or query value ('+' stays '+' in paths).
// Returns false for a malformed escape or an encoded NUL.
bool percent_decode(std::string_view in, std::string& out, bool plus_is_space = false);

// The value of `key` in a query string ("a=1&seat=2"), decoded; empty if absent.
std::string query_value(std::string_view target, std::string_view key);
bool query_has(std::string_view target, std::string_view key);

// The path part of a target (before '?').
std::string_view target_path(std::string_view target);

// The Content-Security-Policy of an HTML page: its own inline scripts run (each named by its
// SHA-256, so an injected one would not), styles only inline, requests and forms only to this
// server, no plugins, frames, base URL or other site's resources.
std::string content_security_policy(std::string_view html);

// Text for HTML: & < > " ' escaped.
std::string html_escape(std::string_view s);

}  // namespace allfives::referee::serve
