#include "serve/cdp_client.h"

#include <gtest/gtest.h>

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "e2e/e2e_util.h"
#include "serve/serve_util.h"

namespace allfives::e2e {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

std::string chromium_binary() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

google::protobuf::Struct parse_json_object(const std::string& text) {
  google::protobuf::Struct s;
  if (!google::protobuf::util::JsonStringToMessage(text, &s).ok()) s.Clear();
  return s;
}

google::protobuf::Value parse_json_value(const std::string& text) {
  google::protobuf::Value v;
  if (!google::protobuf::util::JsonStringToMessage(text, &v).ok()) v.Clear();
  return v;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

std::string base64_decode(const std::string& in) {
  static const std::string kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int val = 0, bits = -8;
  for (const char c : in) {
    const size_t d = kChars.find(c);
    if (d == std::string::npos) break;
    val = (val << 6) + static_cast<int>(d);
    bits += 6;
    if (bits >= 0) {
      out += static_cast<char>((val >> bits) & 0xff);
      bits -= 8;
    }
  }
  return out;
}

}  // namespace

// One thread runs the WebSocket: it reads every message (answers and events) into queues;
// commands are written from the test's thread through the same io_context.
struct CdpBrowser::Impl {
  std::unique_ptr<Child> chromium;
  std::string profile;
  asio::io_context ioc;
  std::unique_ptr<websocket::stream<tcp::socket>> ws;
  std::thread io_thread;
  beast::flat_buffer buffer;
  std::mutex mu;
  std::condition_variable cv;
  std::map<int, google::protobuf::Struct> answers;
  std::vector<CdpEvent> events;
  bool closed = false;
  int next_id = 1;
  std::string session;
  std::deque<std::shared_ptr<std::string>> writes;

  void read_loop() {
    ws->async_read(buffer, [this](beast::error_code ec, size_t) {
      if (ec) {
        std::lock_guard lock(mu);
        closed = true;
        cv.notify_all();
        return;
      }
      const std::string text = beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      google::protobuf::Struct m = parse_json_object(text);
      {
        std::lock_guard lock(mu);
        const auto& f = m.fields();
        if (f.count("id")) {
          answers[static_cast<int>(f.at("id").number_value())] = m;
        } else if (f.count("method")) {
          CdpEvent e;
          e.method = f.at("method").string_value();
          if (f.count("params")) e.params = f.at("params").struct_value();
          events.push_back(std::move(e));
        }
        cv.notify_all();
      }
      read_loop();
    });
  }

  void write(std::string text) {
    auto msg = std::make_shared<std::string>(std::move(text));
    asio::post(ioc, [this, msg] {
      writes.push_back(msg);
      if (writes.size() == 1) write_next();
    });
  }
  void write_next() {
    ws->async_write(asio::buffer(*writes.front()), [this](beast::error_code ec, size_t) {
      writes.pop_front();
      if (!ec && !writes.empty()) write_next();
    });
  }

  google::protobuf::Struct send(const std::string& method, const std::string& params, bool to_page,
                                std::chrono::milliseconds limit) {
    int id;
    {
      std::lock_guard lock(mu);
      id = next_id++;
    }
    std::string text = "{\"id\":" + std::to_string(id) + ",\"method\":" + json_quote(method) +
                       ",\"params\":" + params;
    if (to_page && !session.empty()) text += ",\"sessionId\":" + json_quote(session);
    write(text + "}");
    std::unique_lock lock(mu);
    cv.wait_for(lock, limit, [&] { return answers.count(id) > 0 || closed; });
    google::protobuf::Struct out;
    if (!answers.count(id)) {
      (*out.mutable_fields())["error"].set_string_value("no answer to " + method);
      return out;
    }
    const auto& f = answers[id].fields();
    if (f.count("error")) {
      (*out.mutable_fields())["error"] = f.at("error");
    } else if (f.count("result")) {
      out = f.at("result").struct_value();
    }
    answers.erase(id);
    return out;
  }
};

std::unique_ptr<CdpBrowser> CdpBrowser::start(std::string* error) {
  const std::string binary = chromium_binary();
  if (binary.empty()) {
    *error = "Debian's chromium is not installed (scripts/setup.sh installs it)";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  static int count = 0;
  impl->profile = temp_dir("chromium-profile-" + std::to_string(++count));
  impl->chromium = std::make_unique<Child>(std::vector<std::string>{
      binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0",
      "--remote-allow-origins=*", "--user-data-dir=" + impl->profile, "--window-size=1280,800",
      "--hide-scrollbars", "about:blank"});
  const std::string line =
      impl->chromium->wait_for_line("DevTools listening on ws://", std::chrono::seconds(30));
  if (line.empty()) {
    *error = "chromium did not start: " + impl->chromium->output();
    return nullptr;
  }
  const std::string url = line.substr(line.find("ws://") + 5);
  const size_t colon = url.find(':'), slash = url.find('/');
  const std::string host = url.substr(0, colon);
  const std::string port = url.substr(colon + 1, slash - colon - 1);
  const std::string path = url.substr(slash);
  try {
    tcp::resolver resolver(impl->ioc);
    impl->ws = std::make_unique<websocket::stream<tcp::socket>>(impl->ioc);
    asio::connect(impl->ws->next_layer(), resolver.resolve(host, port));
    impl->ws->read_message_max(64 << 20);
    impl->ws->handshake(host + ":" + port, path);
  } catch (const std::exception& e) {
    *error = std::string("cannot reach chromium's DevTools: ") + e.what();
    return nullptr;
  }
  Impl* raw = impl.get();
  raw->read_loop();
  raw->io_thread = std::thread([raw] { raw->ioc.run(); });
  // From here on the browser object owns everything, so every failure cleans up.
  auto browser = std::unique_ptr<CdpBrowser>(new CdpBrowser(std::move(impl)));
  // The page chromium opened, and a session attached to it.
  const auto targets = raw->send("Target.getTargets", "{}", false, std::chrono::seconds(20));
  std::string target;
  if (targets.fields().count("targetInfos"))
    for (const auto& t : targets.fields().at("targetInfos").list_value().values())
      if (t.struct_value().fields().at("type").string_value() == "page")
        target = t.struct_value().fields().at("targetId").string_value();
  if (target.empty()) {
    *error = "chromium shows no page";
    return nullptr;
  }
  const auto attached = raw->send("Target.attachToTarget",
                                  "{\"targetId\":" + json_quote(target) + ",\"flatten\":true}",
                                  false, std::chrono::seconds(20));
  raw->session =
      attached.fields().count("sessionId") ? attached.fields().at("sessionId").string_value() : "";
  if (raw->session.empty()) {
    *error = "cannot attach to chromium's page";
    return nullptr;
  }
  browser->call("Page.enable");
  browser->call("Runtime.enable");
  browser->call("Network.enable");
  browser->call("Log.enable");
  return browser;
}

CdpBrowser::CdpBrowser(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CdpBrowser::~CdpBrowser() {
  if (!allow_page_errors_)
    for (const std::string& e : page_errors()) ADD_FAILURE() << "the page reported: " << e;
  if (impl_->ws) {
    impl_->send("Browser.close", "{}", false, std::chrono::seconds(3));
  }
  impl_->ioc.stop();
  if (impl_->io_thread.joinable()) impl_->io_thread.join();
  if (impl_->chromium) impl_->chromium->wait_exit(std::chrono::seconds(5));
}

google::protobuf::Struct CdpBrowser::call(const std::string& method, const std::string& params,
                                          std::chrono::milliseconds limit) {
  return impl_->send(method, params, true, limit);
}

std::string CdpBrowser::eval(const std::string& expression) {
  const auto r = call("Runtime.evaluate",
                      "{\"expression\":" + json_quote(expression) + ",\"returnByValue\":true}");
  if (r.fields().count("exceptionDetails") || !r.fields().count("result")) return "";
  const auto& res = r.fields().at("result").struct_value().fields();
  if (!res.count("value")) return "null";
  std::string text;
  google::protobuf::util::MessageToJsonString(res.at("value"), &text);
  return text;
}

bool CdpBrowser::wait_for(const std::string& expression, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (eval("!!(" + expression + ")") == "true") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool CdpBrowser::navigate(const std::string& url) {
  const auto r = call("Page.navigate", "{\"url\":" + json_quote(url) + "}");
  if (r.fields().count("error") || r.fields().count("errorText")) return false;
  return wait_for("document.readyState === 'complete' && location.href === " + json_quote(url),
                  std::chrono::seconds(20));
}

namespace {
// The centre of the first element matching `selector`, scrolled into view, as "x":..,"y":..
// in whole pixels, as a mouse reports it (a page sees integral clientX and clientY).
std::string centre_of(CdpBrowser& b, const std::string& selector) {
  const std::string box =
      b.eval("(() => { const e = document.querySelector(" + json_quote(selector) +
             "); if (!e) return null; e.scrollIntoView({block: 'center'}); "
             "const r = e.getBoundingClientRect(); return [Math.round(r.x + r.width / 2), "
             "Math.round(r.y + r.height / 2)]; })()");
  const auto v = parse_json_value(box);
  if (v.kind_case() != google::protobuf::Value::kListValue) return "";
  const double x = v.list_value().values(0).number_value();
  const double y = v.list_value().values(1).number_value();
  return "\"x\":" + std::to_string(x) + ",\"y\":" + std::to_string(y);
}
}  // namespace

bool CdpBrowser::hover(const std::string& selector) {
  const std::string at = centre_of(*this, selector);
  if (at.empty()) return false;
  call("Input.dispatchMouseEvent", "{\"type\":\"mouseMoved\"," + at + "}");
  return true;
}

bool CdpBrowser::set_viewport(int width, int height, bool mobile) {
  const auto r =
      call("Emulation.setDeviceMetricsOverride",
           "{\"width\":" + std::to_string(width) + ",\"height\":" + std::to_string(height) +
               ",\"deviceScaleFactor\":1,\"mobile\":" + (mobile ? "true" : "false") + "}");
  return !r.fields().count("error");
}

bool CdpBrowser::scrolls_sideways() {
  return eval(
             "document.documentElement.scrollWidth > window.innerWidth + 1 || "
             "document.body.scrollWidth > window.innerWidth + 1") == "true";
}

bool CdpBrowser::click(const std::string& selector) {
  // Where the element settles: a page still laying itself out (a loaded machine) may move it
  // between the measure and the press, and a person clicks what they see, not what was there.
  std::string at = centre_of(*this, selector);
  for (int tries = 0; !at.empty() && tries < 20; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string again = centre_of(*this, selector);
    if (again == at) break;
    at = again;
  }
  if (at.empty()) return false;
  call("Input.dispatchMouseEvent", "{\"type\":\"mouseMoved\"," + at + "}");
  call("Input.dispatchMouseEvent",
       "{\"type\":\"mousePressed\",\"button\":\"left\",\"clickCount\":1," + at + "}");
  call("Input.dispatchMouseEvent",
       "{\"type\":\"mouseReleased\",\"button\":\"left\",\"clickCount\":1," + at + "}");
  return true;
}

bool CdpBrowser::screenshot(const std::string& path) {
  const auto r = call("Page.captureScreenshot", "{\"format\":\"png\"}");
  if (!r.fields().count("data")) return false;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << base64_decode(r.fields().at("data").string_value());
  return true;
}

std::unique_ptr<CdpBrowser> browser_or_fail() {
  std::string why;
  auto b = CdpBrowser::start(&why);
  EXPECT_TRUE(b) << why;
  return b;
}

std::vector<std::string> CdpBrowser::page_errors() {
  std::vector<std::string> out;
  const auto text = [](const google::protobuf::Message& m) {
    std::string json;
    google::protobuf::util::MessageToJsonString(m, &json);
    return json;
  };
  for (const CdpEvent& e : events()) {
    const auto& f = e.params.fields();
    if (e.method == "Runtime.exceptionThrown") {
      out.push_back("uncaught: " + text(e.params));
    } else if (e.method == "Runtime.consoleAPICalled" && f.count("type") &&
               (f.at("type").string_value() == "error" ||
                f.at("type").string_value() == "assert")) {
      out.push_back("console." + f.at("type").string_value() + ": " + text(e.params));
    } else if (e.method == "Log.entryAdded" && f.count("entry")) {
      const auto& entry = f.at("entry").struct_value().fields();
      if (entry.count("level") && entry.at("level").string_value() == "error")
        out.push_back("log: " + text(f.at("entry").struct_value()));
    }
  }
  return out;
}

std::vector<CdpEvent> CdpBrowser::events() {
  std::lock_guard lock(impl_->mu);
  return impl_->events;
}

}  // namespace allfives::e2e
