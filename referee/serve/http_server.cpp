#include "serve/http_server.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <deque>
#include <limits>
#include <optional>

namespace allfives::referee::serve {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr size_t kHeaderLimit = 16 * 1024;
constexpr size_t kBodyLimit = 64 * 1024;  // forms and a chosen play; uploads go to disk
constexpr std::chrono::seconds kLinger{5};

}  // namespace

HttpResponse json_response(int status, std::string json) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(json);
  return r;
}

HttpResponse html(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

HttpResponse text_response(int status, std::string text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::to_string(status) + " " +
           std::string(http::obsolete_reason(static_cast<http::status>(status))) + ": " +
           std::move(text) + "\n";
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

namespace {
class Session;

// The last address of an X-Forwarded-For header (the one the trusted proxy itself saw), as
// the server writes addresses; `proxy` if there is none or it is not an IP address.
std::string forwarded_client(const std::string& header, const std::string& proxy) {
  std::string last =
      header.substr(header.rfind(',') == std::string::npos ? 0 : header.rfind(',') + 1);
  last.erase(0, last.find_first_not_of(" \t"));
  last.erase(last.find_last_not_of(" \t") + 1);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(last, ec);
  return ec ? proxy : address.to_string();
}
}  // namespace

// The listening socket and the sessions open; touched only on the thread running the
// io_context.
struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io, HttpHandler h, HttpServerOptions o)
      : ioc(io), acceptor(io), handler(std::move(h)), options(std::move(o)) {}
  asio::io_context& ioc;
  tcp::acceptor acceptor;
  HttpHandler handler;
  HttpServerOptions options;
  HostPolicy hosts;
  bool stopped = false;
  std::vector<std::weak_ptr<Session>> sessions;

  void accept();
  void on_accept(tcp::socket socket);
  // Closes the longest-waiting idle connection (of `client` only, if given) to let a new one
  // in; false if every one is busy.
  bool evict_one(const asio::ip::address* client);
  int streams_of(const asio::ip::address& client);
};

namespace {

// One connection: requests one after another (keep-alive), or, once a handler asks for it, a
// server-sent-events stream until either side closes. Everything but send() and close() runs
// on the session's strand; those two post there.
class Session final : public EventSink, public std::enable_shared_from_this<Session> {
 public:
  enum class State { kReading, kAnswering, kStreaming };

  Session(tcp::socket socket, std::shared_ptr<HttpServer::Impl> server, asio::ip::address client)
      : stream_(std::move(socket)), server_(std::move(server)), client_(std::move(client)) {}

  ~Session() override { drop_body_file(); }

  const asio::ip::address& client() const { return client_; }
  State state() const { return state_; }
  Clock::time_point waiting_since() const { return waiting_since_; }
  // Closed, or about to be: no longer counted against any limit.
  bool gone() const { return closed_ || evicted_; }

  void start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_request(); });
  }
  void refuse(int status, std::string why) {
    asio::dispatch(stream_.get_executor(),
                   [self = shared_from_this(), status, why = std::move(why)]() mutable {
                     self->state_ = State::kAnswering;
                     self->respond(text_response(status, std::move(why)), false, false);
                   });
  }
  // Closed to make room for a newcomer.
  void evict() {
    evicted_ = true;
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->shut(); });
  }

  void send(std::shared_ptr<const std::string> frame) override {
    if (closed_) return;
    asio::post(stream_.get_executor(), [self = shared_from_this(), frame = std::move(frame)] {
      self->enqueue(std::move(frame));
    });
  }

  void close() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (!self->writing_ && self->queue_.empty()) self->shut();
    });
  }

 private:
  const HttpServerOptions& options() const { return server_->options; }

  void read_request() {
    state_ = State::kReading;
    waiting_since_ = Clock::now();
    head_.emplace();
    head_->header_limit(kHeaderLimit);
    // The head's parser would check Content-Length against its own default limit; the limit
    // that applies is set once the body's plan is known.
    head_->body_limit(std::numeric_limits<std::uint64_t>::max());
    stream_.expires_after(options().request_deadline);
    http::async_read_header(
        stream_, buffer_, *head_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_head(ec); });
  }

  // True (having closed) if `ec` means the client went away or took too long.
  bool gone_on(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::eof) {
      shut();
      return true;
    }
    return false;
  }

  // The head has arrived: refuse it, or read its body into memory or into the file its plan
  // names.
  void on_head(beast::error_code ec) {
    if (closed_ || gone_on(ec)) return;
    if (ec) {
      state_ = State::kAnswering;
      respond(text_response(400, ec.message()), false, false);
      return;
    }
    const auto& req = head_->get();
    request_ = HttpRequest{};
    request_.method = req.method() == http::verb::head ? "GET" : std::string(req.method_string());
    request_.target = std::string(req.target());
    request_.client = client_.to_string();
    const auto field = [&](auto name) {
      const auto it = req.find(name);
      return it == req.end() ? std::string() : std::string(it->value());
    };
    request_.cookie = field(http::field::cookie);
    request_.content_type = field(http::field::content_type);
    request_.over_tls = field("X-Forwarded-Proto") == "https";
    if (!options().trusted_proxy.empty() && request_.client == options().trusted_proxy)
      request_.client = forwarded_client(field("X-Forwarded-For"), request_.client);
    if (auto refusal = check_origin(req)) {
      state_ = State::kAnswering;
      unread_body_ = true;
      respond(std::move(*refusal), false, req.method() == http::verb::head);
      return;
    }
    BodyPlan plan;
    if (req.method() == http::verb::post && options().plan_body)
      plan = options().plan_body(request_);
    if (plan.refusal) {
      state_ = State::kAnswering;
      unread_body_ = true;
      respond(std::move(*plan.refusal), false, false);
      return;
    }
    // The parsers check a declared length against their limit with the head only, which was
    // read without one; a chunked body is counted against it as it comes.
    const uint64_t limit = plan.file.empty() ? kBodyLimit : plan.limit;
    if (head_->content_length() && *head_->content_length() > limit) {
      state_ = State::kAnswering;
      unread_body_ = true;
      respond(text_response(413, plan.too_large.empty() ? "the body is larger than allowed here"
                                                        : plan.too_large),
              false, false);
      return;
    }
    if (!plan.file.empty()) {
      read_to_file(std::move(plan));
      return;
    }
    parser_.emplace(std::move(*head_));
    parser_->body_limit(kBodyLimit);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
  }

  void read_to_file(BodyPlan plan) {
    file_parser_.emplace(std::move(*head_));
    file_parser_->body_limit(plan.limit);
    beast::error_code ec;
    file_parser_->get().body().open(plan.file.c_str(), beast::file_mode::write_new, ec);
    if (ec) {
      state_ = State::kAnswering;
      respond(text_response(503, "the upload cannot be stored now: " + ec.message()), false, false);
      return;
    }
    body_file_ = plan.file;
    too_large_ = plan.too_large;
    stream_.expires_after(options().upload_deadline);
    http::async_read(
        stream_, buffer_, *file_parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
  }

  // Removes the body's file (kept only while its handler runs).
  void drop_body_file() {
    if (body_file_.empty()) return;
    if (file_parser_) file_parser_->get().body().close();
    ::unlink(body_file_.c_str());
    body_file_.clear();
  }

  void on_request(beast::error_code ec) {
    if (closed_) {
      drop_body_file();
      return;
    }
    if (gone_on(ec)) {
      drop_body_file();
      return;
    }
    state_ = State::kAnswering;
    if (ec) {  // a malformed or oversized request: say so, then close
      drop_body_file();
      const bool large = ec == http::error::body_limit;
      unread_body_ = true;
      respond(text_response(large ? 413 : 400, !large ? ec.message()
                                               : too_large_.empty()
                                                   ? "the body is larger than allowed here"
                                                   : too_large_),
              false, false);
      return;
    }
    const bool from_file = !body_file_.empty();
    const bool head = !from_file && parser_->get().method() == http::verb::head;
    const bool keep_alive =
        from_file ? file_parser_->get().keep_alive() : parser_->get().keep_alive();
    if (from_file) {
      file_parser_->get().body().close();
      request_.body_file = body_file_;
    } else {
      request_.body = std::move(parser_->get().body());
    }
    HttpResponse res;
    try {
      res = server_->handler(request_);
    } catch (const std::exception& e) {
      res = text_response(500, e.what());
    }
    drop_body_file();
    request_ = HttpRequest{};
    if (res.on_event_stream) {
      if (server_->streams_of(client_) >= options().max_streams_per_client)
        respond(text_response(503, "too many open streams from your address"), false, head);
      else if (head)
        respond(stream_head(), false, true);
      else
        start_stream(res);
      return;
    }
    if (!res.file.empty())
      send_file(std::move(res), keep_alive, head);
    else
      respond(std::move(res), keep_alive, head);
  }

  // A Host that is not the address served, or an Origin of another site: 403.
  std::optional<HttpResponse> check_origin(const http::request_header<>& req) const {
    const auto view = [](beast::string_view v) { return std::string_view(v.data(), v.size()); };
    const auto host = req.find(http::field::host);
    if (host == req.end()) {
      if (req.version() >= 11) return text_response(400, "an HTTP/1.1 request must send Host");
    } else if (!host_allowed(view(host->value()), server_->hosts)) {
      return text_response(403, "this server does not answer to the name '" +
                                    std::string(host->value()) +
                                    "' (referee serve --allow-host NAME adds a name)");
    }
    const auto origin = req.find(http::field::origin);
    if (origin != req.end() && !origin_allowed(view(origin->value()), server_->hosts))
      return text_response(
          403, "requests from pages of '" + std::string(origin->value()) + "' are refused");
    return std::nullopt;
  }

  static HttpResponse stream_head() {
    HttpResponse r;
    r.content_type = "text/event-stream; charset=utf-8";
    return r;
  }

  template <class Message>
  void set_headers(Message& msg, const HttpResponse& res, bool keep_alive) {
    msg.set(http::field::server, "allfives-referee");
    msg.set(http::field::content_type, res.content_type);
    msg.set(http::field::cache_control, "no-store");
    msg.set("X-Content-Type-Options", "nosniff");
    if (res.content_type.starts_with("text/html"))  // a file sent holds no page's scripts
      msg.set("Content-Security-Policy", content_security_policy(res.file.empty() ? res.body : ""));
    for (const auto& [k, v] : res.headers) msg.set(k, v);
    msg.keep_alive(keep_alive);
  }

  // The head alone, as a HEAD request gets it: the length the body would have.
  void respond_head(const HttpResponse& res, uint64_t length, bool keep_alive) {
    auto msg = std::make_shared<http::response<http::empty_body>>(
        static_cast<http::status>(res.status), 11);
    set_headers(*msg, res, keep_alive);
    msg->content_length(length);
    write_message(std::move(msg));
  }

  void respond(HttpResponse res, bool keep_alive, bool head) {
    if (head) {
      respond_head(res, res.body.size(), keep_alive);
      return;
    }
    auto msg = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(res.status), 11);
    set_headers(*msg, res, keep_alive);
    msg->body() = std::move(res.body);
    msg->prepare_payload();
    write_message(std::move(msg));
  }

  void send_file(HttpResponse res, bool keep_alive, bool head) {
    const int fd = ::open(res.file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      if (fd >= 0) ::close(fd);
      respond(text_response(404, "the file cannot be read"), keep_alive, head);
      return;
    }
    if (head) {
      ::close(fd);
      respond_head(res, static_cast<uint64_t>(st.st_size), keep_alive);
      return;
    }
    beast::file_posix file;
    file.native_handle(fd);  // owned by `file` from here on
    http::file_body::value_type body;
    beast::error_code ec;
    body.reset(std::move(file), ec);
    if (ec) {
      respond(text_response(404, "the file cannot be read: " + ec.message()), keep_alive, false);
      return;
    }
    const uint64_t size = body.size();
    auto msg = std::make_shared<http::response<http::file_body>>(
        std::piecewise_construct, std::make_tuple(std::move(body)),
        std::make_tuple(static_cast<http::status>(res.status), 11));
    set_headers(*msg, res, keep_alive);
    msg->content_length(size);
    write_message(std::move(msg));
  }

  template <class Message>
  void write_message(std::shared_ptr<Message> msg) {
    stream_.expires_after(options().write_deadline);
    http::async_write(stream_, *msg,
                      [self = shared_from_this(), msg](beast::error_code ec, size_t) {
                        if (self->closed_) return;
                        if (!ec && self->unread_body_)
                          self->linger();
                        else if (ec || !msg->keep_alive())
                          self->shut();
                        else
                          self->read_request();
                      });
  }

  // After answering a request whose body was not read (refused, or over its limit): closing
  // at once would reset the connection and a browser still sending could lose the answer, so
  // the rest is read and dropped for a few seconds after our side is shut.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLinger);
    watch_close();
  }

  void start_stream(HttpResponse& res) {
    stream_.expires_never();
    state_ = State::kStreaming;
    enqueue(std::make_shared<const std::string>(
        "HTTP/1.1 200 OK\r\nServer: allfives-referee\r\nContent-Type: text/event-stream; "
        "charset=utf-8\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
        "Connection: close\r\n\r\n"));
    watch_close();
    res.on_event_stream(shared_from_this());
  }

  // Reads and drops what the client sends until it goes away (or half-closes): a stream's
  // client sends nothing more, a lingering one the rest of a body.
  void watch_close() {
    stream_.async_read_some(asio::buffer(sink_buf_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (self->closed_) return;
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
    if (!writing_) write_next();
  }

  // One write at a time; the handler owns the bytes it writes, so closing the session (which
  // empties the queue) never frees them under a write in flight.
  void write_next() {
    writing_ = true;
    std::shared_ptr<const std::string> frame = queue_.front();
    asio::async_write(stream_, asio::buffer(*frame),
                      [self = shared_from_this(), frame](beast::error_code ec, size_t) {
                        self->writing_ = false;
                        if (self->closed_) return;
                        if (ec) {
                          self->shut();
                          return;
                        }
                        self->queued_bytes_ -= frame->size();
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
    queued_bytes_ = 0;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  std::shared_ptr<HttpServer::Impl> server_;
  asio::ip::address client_;
  std::atomic<State> state_{State::kReading};
  Clock::time_point waiting_since_ = Clock::now();
  std::atomic<bool> evicted_{false};
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> head_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::request_parser<http::file_body>> file_parser_;
  HttpRequest request_;       // the request being read
  std::string body_file_;     // its body's file while it is read and answered
  std::string too_large_;     // its plan's words for a body over the limit
  bool unread_body_ = false;  // the request's body was not read to its end
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closing_ = false;
  char sink_buf_[512];
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(ioc),
                        [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
                          if (self->stopped) return;
                          if (!ec) self->on_accept(std::move(socket));
                          self->accept();
                        });
}

void HttpServer::Impl::on_accept(tcp::socket socket) {
  beast::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (ec) return;  // already gone
  std::erase_if(sessions, [](const std::weak_ptr<Session>& w) {
    const auto s = w.lock();
    return !s || s->gone();
  });
  const asio::ip::address client = remote.address();
  auto session = std::make_shared<Session>(std::move(socket), shared_from_this(), client);
  int mine = 0, total = 0;
  for (const auto& w : sessions)
    if (const auto s = w.lock(); s && !s->gone()) {
      ++total;
      mine += s->client() == client;
    }
  const bool room = (mine < options.max_per_client || evict_one(&client)) &&
                    (total < options.max_connections || evict_one(nullptr));
  if (!room) {
    session->refuse(503, "too many connections, all of them busy");
    return;
  }
  sessions.push_back(session);
  session->start();
}

bool HttpServer::Impl::evict_one(const asio::ip::address* client) {
  std::shared_ptr<Session> oldest;
  for (const auto& w : sessions) {
    const auto s = w.lock();
    if (!s || s->gone() || s->state() != Session::State::kReading) continue;
    if (client && s->client() != *client) continue;
    if (!oldest || s->waiting_since() < oldest->waiting_since()) oldest = s;
  }
  if (!oldest) return false;
  oldest->evict();
  return true;
}

int HttpServer::Impl::streams_of(const asio::ip::address& client) {
  int n = 0;
  for (const auto& w : sessions)
    if (const auto s = w.lock();
        s && !s->gone() && s->client() == client && s->state() == Session::State::kStreaming)
      ++n;
  return n;
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
  HttpServerOptions checked = options;
  if (!options.trusted_proxy.empty()) {
    // Written as the server writes a client's address, so that the two compare equal.
    const auto proxy = asio::ip::make_address(options.trusted_proxy, ec);
    if (ec) {
      if (error) *error = "--trusted-proxy '" + options.trusted_proxy + "' is not an IP address";
      return nullptr;
    }
    checked.trusted_proxy = proxy.to_string();
  }
  auto impl = std::make_shared<Impl>(ioc, std::move(handler), checked);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    if (error) *error = "cannot listen on " + options.listen + ": " + ec.message();
    return nullptr;
  }
  impl->hosts.listen_host = address.to_string();
  impl->hosts.port = impl->acceptor.local_endpoint(ec).port();
  for (const std::string& name : options.allowed_hosts) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    impl->hosts.extra_names.push_back(lower);
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

std::string beyond_loopback_warning(const std::string& listen, const std::string& what) {
  std::string host;
  int port = 0;
  if (!split_host_port(listen, host, port) || is_loopback_host(host)) return "";
  return "warning: " + listen + " is reachable from other machines: anyone who can connect " +
         what + ". Listen on 127.0.0.1 unless that is what you want.";
}

}  // namespace allfives::referee::serve
