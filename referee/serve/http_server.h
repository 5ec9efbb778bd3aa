// A small HTTP/1.1 server on Boost.Beast for `referee serve` and the human seat's page: one
// thread runs every connection (Asio's event loop), requests are read with size and time
// limits, and a handler turns each request into a response, a file streamed from disk, or a
// server-sent-events stream that others feed from any thread. Nothing here knows about
// matches.
//
// What keeps it up against hostile clients:
// * each connection is a session whose state (its write queue above all) is touched only on
//   its own strand; every completion handler holds the session alive and does nothing once
//   the session is closed, and the bytes being written belong to the write in flight;
// * a request must arrive whole (head and body) within `request_deadline` of the moment the
//   connection starts waiting for it, and the head is at most 16 KiB, the body 64 KiB, unless
//   plan_body sends it to a file (upload_deadline, its own cap);
// * a client (one remote address) holds at most `max_per_client` connections and all clients
//   together `max_connections`; when a new connection finds no room, the connection that has
//   waited longest for a request (idle or sending one slowly) is closed to make room, so
//   connections held open by anyone cannot keep a new request out. Only when every
//   connection is busy answering or streaming is the newcomer refused (503);
// * at most `max_streams_per_client` event streams per client (503 beyond);
// * the Host header must name the address served (HostPolicy, http_text.h) and an Origin
//   header, if sent, must be that address too: 403 otherwise (DNS rebinding, other sites'
//   pages).
// HEAD is answered as GET without the body.
#pragma once

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "serve/http_text.h"

namespace allfives::referee::serve {

struct HttpRequest {
  std::string method;  // "GET", "POST", ... (HEAD arrives as GET)
  std::string target;  // as sent: path and query, still percent-encoded
  std::string body;
  std::string client;        // the remote address ("127.0.0.1"), or what a trusted proxy forwards
  std::string cookie;        // the Cookie header, "" if none
  std::string content_type;  // the Content-Type header, "" if none
  // Whether the request reached a TLS proxy in front (X-Forwarded-Proto: https): cookies are
  // then marked Secure.
  bool over_tls = false;
  // A body the server streamed to disk (HttpServerOptions::plan_body) instead of `body`: the
  // file's path, removed by the server once the handler returns.
  std::string body_file;
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
  // Set to send this file (a real path) as the body instead of `body`: it is streamed from
  // disk a chunk at a time, so its size costs no memory. 404 if it cannot be opened.
  std::string file;
};

// Where a request's body goes, decided from its head alone: `file` (a path the server creates
// and fills, at most `limit` bytes: 413 beyond), or nowhere: `refusal` is answered at once
// without reading the body. Neither: the body is read into memory (at most 64 KiB).
struct BodyPlan {
  std::string file;
  uint64_t limit = 0;
  std::string too_large;  // the 413's words ("the ladder takes uploads of at most 64 MiB")
  std::optional<HttpResponse> refusal;
};

// A plain-text response (errors: "404 Not Found: ...").
HttpResponse text_response(int status, std::string text);
// An application/json response of `json`; a 200 page of `body`.
HttpResponse json_response(int status, std::string json);
HttpResponse html(std::string body);

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// One open server-sent-events connection. send() may be called from any thread; messages are
// written in order. A client that stops reading is dropped once kMaxQueuedBytes wait for it,
// so a slow watcher costs bounded memory.
class EventSink {
 public:
  static constexpr size_t kMaxQueuedBytes = size_t{4} << 20;
  virtual ~EventSink() = default;
  // `frame` is a whole message as event_frame() makes it.
  virtual void send(std::shared_ptr<const std::string> frame) = 0;
  // Ends the stream after the queued messages.
  virtual void close() = 0;
  bool closed() const { return closed_; }
  // The bytes of one message, to share between many sinks: `data` is its payload (no newlines:
  // JSON), `event` its type ("" for message).
  static std::string event_frame(const std::string& event, const std::string& data);

 protected:
  std::atomic<bool> closed_{false};
};

struct HttpServerOptions {
  std::string listen = "127.0.0.1:8080";  // host:port; port 0 picks a free one
  int max_connections = 512;
  int max_per_client = 128;
  int max_streams_per_client = 64;
  std::chrono::milliseconds request_deadline{10000};
  std::chrono::milliseconds write_deadline{30000};  // for a response to be taken by its client
  std::vector<std::string> allowed_hosts;           // names accepted in Host besides loopback
  // Called for each POST's head (no body yet); null: every body is read into memory.
  std::function<BodyPlan(const HttpRequest&)> plan_body;
  std::chrono::milliseconds upload_deadline{600000};  // for a body streamed to disk
  // A reverse proxy's IP address: a request from it is taken as from the last address its
  // X-Forwarded-For names (HttpRequest::client, by which sign-ins are limited). "": none.
  std::string trusted_proxy;
};

class HttpServer {
 public:
  // Binds and starts accepting on `ioc` (which the caller runs on one thread). Returns null
  // and says why.
  static std::unique_ptr<HttpServer> start(boost::asio::io_context& ioc,
                                           const HttpServerOptions& options, HttpHandler handler,
                                           std::string* error);
  ~HttpServer();
  int port() const;
  std::string host() const;  // "127.0.0.1", "[::1]"
  // Stops accepting; open connections end as the io_context stops.
  void stop();

  struct Impl;

 private:
  explicit HttpServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// The warning to print when `listen` (HOST:PORT) reaches beyond this machine, or "".
std::string beyond_loopback_warning(const std::string& listen, const std::string& what);

}  // namespace allfives::referee::serve
