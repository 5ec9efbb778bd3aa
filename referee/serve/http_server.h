// A small HTTP/1.1 server on Boost.Beast for `referee serve` and the human seat's page: one
// thread runs every connection (Asio's event loop), requests are read with size and time
// limits, and a handler turns each request into a response or into a server-sent-events
// stream that others feed from any thread. Nothing here knows about matches.
#pragma once

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace allfives::referee::serve {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query, still percent-encoded
  std::string body;
};

class EventSink;

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Set to answer with a text/event-stream instead: the connection stays open and this is
  // called once with the sink that feeds it.
  std::function<void(std::shared_ptr<EventSink>)> on_event_stream;
};

// A plain-text response (errors: "404 not found: ...").
HttpResponse text_response(int status, std::string text);

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// One open server-sent-events connection. send() may be called from any thread; messages are
// written in order. A client that stops reading is dropped once kMaxQueuedBytes wait for it,
// so a slow watcher costs bounded memory.
class EventSink {
 public:
  static constexpr size_t kMaxQueuedBytes = size_t{4} << 20;
  virtual ~EventSink() = default;
  // `data` is one message's payload (no newlines: JSON); `event` its type ("" for message).
  virtual void send(std::shared_ptr<const std::string> frame) = 0;
  void send_event(const std::string& event, const std::string& data) {
    send(std::make_shared<const std::string>(event_frame(event, data)));
  }
  // Ends the stream after the queued messages.
  virtual void close() = 0;
  bool closed() const { return closed_; }
  // The bytes of one message, to share between many sinks.
  static std::string event_frame(const std::string& event, const std::string& data);

 protected:
  std::atomic<bool> closed_{false};
};

struct HttpServerOptions {
  std::string listen = "127.0.0.1:8080";  // host:port; port 0 picks a free one
  int max_connections = 512;              // more are refused at once (503)
};

class HttpServer {
 public:
  // Binds and starts accepting on `ioc` (which the caller runs). Returns null and says why.
  static std::unique_ptr<HttpServer> start(boost::asio::io_context& ioc,
                                           const HttpServerOptions& options, HttpHandler handler,
                                           std::string* error);
  ~HttpServer();
  int port() const;
  std::string host() const;
  // Stops accepting; open connections end as the io_context stops.
  void stop();

  struct Impl;

 private:
  explicit HttpServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// Splits "host:port" (IPv6 as "[::1]:port"). Returns false if it is not one.
bool split_host_port(const std::string& text, std::string& host, int& port);

// "%2e%2E" -> "..": percent-decoding of a URL path or query value ('+' stays '+' in paths).
// Returns false for a malformed escape or an encoded NUL.
bool percent_decode(std::string_view in, std::string& out, bool plus_is_space = false);

// The value of `key` in a query string ("a=1&seat=2"), decoded; empty if absent.
std::string query_value(std::string_view target, std::string_view key);
bool query_has(std::string_view target, std::string_view key);

// The path part of a target (before '?').
std::string_view target_path(std::string_view target);

// Text for HTML: & < > " ' escaped.
std::string html_escape(std::string_view s);

}  // namespace allfives::referee::serve
