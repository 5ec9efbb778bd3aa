// A minimal Chrome DevTools protocol client for browser tests: starts Debian's headless
// Chromium (nothing downloaded, no Node), attaches to its page over a WebSocket (Boost.Beast)
// and sends commands; every event the browser reports is kept, so a test can see each
// message a page received (Network.eventSourceMessageReceived), and fails the test on any error
// a page reports.
#pragma once

#include <google/protobuf/struct.pb.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace allfives::e2e {

// The chromium binary, or "" if it is not installed.
std::string chromium_binary();

struct CdpEvent {
  std::string method;
  google::protobuf::Struct params;
};

class CdpBrowser {
 public:
  // Starts Chromium (window 1280x800) and attaches to its page. Null and why on failure.
  static std::unique_ptr<CdpBrowser> start(std::string* error);
  ~CdpBrowser();

  // Sends a command to the page and waits for its answer; the result, or the error as a
  // Struct with an "error" field. `params` is a JSON object.
  google::protobuf::Struct call(const std::string& method, const std::string& params = "{}",
                                std::chrono::milliseconds limit = std::chrono::seconds(20));
  // Evaluates JavaScript in the page; the value as JSON text ("" on an exception).
  std::string eval(const std::string& expression);
  // Evaluates until it gives "true" or the limit passes.
  bool wait_for(const std::string& expression, std::chrono::milliseconds limit);
  // Loads a URL and waits for its load event.
  bool navigate(const std::string& url);
  // A real mouse click at the centre of the first element matching `selector`.
  bool click(const std::string& selector);
  // Moves the mouse over the centre of the first element matching `selector`.
  bool hover(const std::string& selector);
  // The page's viewport: `width` x `height` CSS pixels, as a phone (`mobile`) or a desktop.
  bool set_viewport(int width, int height, bool mobile);
  // Whether the page is wider than its viewport (it would scroll sideways).
  bool scrolls_sideways();
  // A PNG of the page, written to `path`.
  bool screenshot(const std::string& path);
  // Every event received so far.
  std::vector<CdpEvent> events();
  // What the pages reported as errors so far: uncaught exceptions, console.error, and the
  // browser's own error entries (a script or style the Content Security Policy blocked, a
  // resource that failed to load). Unless allowed, each fails the test when the browser is
  // closed.
  std::vector<std::string> page_errors();
  void allow_page_errors() { allow_page_errors_ = true; }

  struct Impl;

 private:
  explicit CdpBrowser(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  bool allow_page_errors_ = false;
};

// A started browser, or null with the test failed and told why.
std::unique_ptr<CdpBrowser> browser_or_fail();

// JSON text as a Struct / a Value.
google::protobuf::Struct parse_json_object(const std::string& text);
google::protobuf::Value parse_json_value(const std::string& text);
// A string as a JSON string literal (for building params).
std::string json_quote(const std::string& s);

}  // namespace allfives::e2e
