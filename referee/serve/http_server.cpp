#include "serve/http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <deque>
#include <optional>

namespace allfives::referee::serve {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kReadTimeout = std::chrono::seconds(30);  // idle keep-alive and slow requests
constexpr size_t kHeaderLimit = 16 * 1024;
constexpr size_t kBodyLimit = 64 * 1024;  // the only bodies are a chosen play

const char* reason_of(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "";
  }
}

}  // namespace

HttpResponse text_response(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::to_string(status) + " " + reason_of(status) + ": " + std::move(text) + "\n";
  return r;
}

std::string EventSink::event_frame(const std::string& event, const std::string& data) {
  std::string out;
  out.reserve(data.size() + event.size() + 16);
  if (!event.empty()) out += "event: " + event + "\n";
  out += "data: ";
  for (char c : data) out += c == '\n' ? ' ' : c;  // one data line per message
  out += "\n\n";
  return out;
}

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io, HttpHandler h, int max)
      : ioc(io), acceptor(io), handler(std::move(h)), max_connections(max) {}
  asio::io_context& ioc;
  tcp::acceptor acceptor;
  HttpHandler handler;
  int max_connections;
  int connections = 0;  // touched on the io thread only
  bool stopped = false;
  void accept();
};

namespace {

// One connection: requests one after another (keep-alive), or, once a handler asks for it, a
// server-sent-events stream until either side closes.
class Session final : public EventSink, public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<HttpServer::Impl> server)
      : stream_(std::move(socket)), server_(std::move(server)) {
    ++server_->connections;
  }
  ~Session() override { --server_->connections; }

  void start() { read_request(); }

  void refuse_busy() { write(text_response(503, "too many connections"), false); }

  void send(std::shared_ptr<const std::string> frame) override {
    if (closed_) return;
    asio::post(stream_.get_executor(), [self = shared_from_this(), frame = std::move(frame)] {
      self->enqueue(std::move(frame));
    });
  }

  void close() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (self->queue_.empty()) self->shut();
    });
  }

 private:
  void read_request() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(kBodyLimit);
    stream_.expires_after(kReadTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
  }

  void on_request(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::eof) {
      shut();
      return;
    }
    if (ec) {  // a malformed or oversized request: say so, then close
      write(text_response(ec == http::error::body_limit ? 413 : 400, ec.message()), false);
      return;
    }
    const auto& req = parser_->get();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    r.body = req.body();
    HttpResponse res;
    try {
      res = server_->handler(r);
    } catch (const std::exception& e) {
      res = text_response(500, e.what());
    }
    if (res.on_event_stream) {
      start_stream(res);
      return;
    }
    write(std::move(res), req.keep_alive());
  }

  void write(HttpResponse res, bool keep_alive) {
    auto msg = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(res.status), 11);
    msg->set(http::field::server, "allfives-referee");
    msg->set(http::field::content_type, res.content_type);
    msg->set(http::field::cache_control, "no-store");
    msg->set("X-Content-Type-Options", "nosniff");
    for (const auto& [k, v] : res.headers) msg->set(k, v);
    msg->body() = std::move(res.body);
    msg->keep_alive(keep_alive);
    msg->prepare_payload();
    stream_.expires_after(kReadTimeout);
    http::async_write(stream_, *msg,
                      [self = shared_from_this(), msg](beast::error_code ec, size_t) {
                        if (ec || !msg->keep_alive())
                          self->shut();
                        else
                          self->read_request();
                      });
  }

  void start_stream(HttpResponse& res) {
    stream_.expires_never();
    streaming_ = true;
    enqueue(std::make_shared<const std::string>(
        "HTTP/1.1 200 OK\r\nServer: allfives-referee\r\nContent-Type: text/event-stream; "
        "charset=utf-8\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
        "Connection: close\r\n\r\n"));
    watch_close();
    res.on_event_stream(shared_from_this());
  }

  // A stream's client sends nothing more; a read ends only when it goes away.
  void watch_close() {
    stream_.async_read_some(asio::buffer(sink_buf_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec)
                                self->shut();
                              else
                                self->watch_close();
                            });
  }

  void enqueue(std::shared_ptr<const std::string> frame) {
    if (closed_) return;
    queued_bytes_ += frame->size();
    if (queued_bytes_ > kMaxQueuedBytes) {  // the client stopped reading
      shut();
      return;
    }
    queue_.push_back(std::move(frame));
    if (queue_.size() == 1) write_next();
  }

  void write_next() {
    asio::async_write(stream_, asio::buffer(*queue_.front()),
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (ec) {
                          self->shut();
                          return;
                        }
                        self->queued_bytes_ -= self->queue_.front()->size();
                        self->queue_.pop_front();
                        if (!self->queue_.empty())
                          self->write_next();
                        else if (self->closing_)
                          self->shut();
                      });
  }

  void shut() {
    if (closed_.exchange(true)) return;
    queue_.clear();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  std::shared_ptr<HttpServer::Impl> server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool streaming_ = false;
  bool closing_ = false;
  char sink_buf_[512];
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
    if (self->stopped) return;
    if (!ec) {
      auto session = std::make_shared<Session>(std::move(socket), self);
      if (self->connections > self->max_connections)
        session->refuse_busy();
      else
        session->start();
    }
    self->accept();
  });
}

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

std::unique_ptr<HttpServer> HttpServer::start(asio::io_context& ioc,
                                              const HttpServerOptions& options, HttpHandler handler,
                                              std::string* error) {
  std::string host;
  int port = 0;
  if (!split_host_port(options.listen, host, port)) {
    if (error) *error = "'" + options.listen + "' is not HOST:PORT (e.g. 127.0.0.1:8080)";
    return nullptr;
  }
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) {
    if (error) *error = "'" + host + "' is not an IP address";
    return nullptr;
  }
  auto impl = std::make_shared<Impl>(ioc, std::move(handler), options.max_connections);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    if (error) *error = "cannot listen on " + options.listen + ": " + ec.message();
    return nullptr;
  }
  impl->accept();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

int HttpServer::port() const {
  beast::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

std::string HttpServer::host() const {
  beast::error_code ec;
  const auto a = impl_->acceptor.local_endpoint(ec).address();
  return a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
}

void HttpServer::stop() {
  asio::post(impl_->ioc, [impl = impl_] {
    impl->stopped = true;
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
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

}  // namespace allfives::referee::serve
