#include "cli/serve_command.h"

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <iostream>
#include <memory>

#include "cli/stop_signal.h"
#include "serve/arena_site.h"
#include "serve/http_server.h"

namespace allfives::referee {
namespace {

struct ServeOptions {
  std::vector<std::string> dirs;
  std::string listen = "127.0.0.1:8080";
  std::vector<std::string> allow_hosts;
  std::string trusted_proxy;
  int poll_ms = 100;
  std::string spectators = "public";
};

// Checks the stop flag every 100 ms: Ctrl-C ends the event loop.
void watch_stop(boost::asio::steady_timer& timer, const std::atomic<bool>& stop,
                boost::asio::io_context& ioc) {
  timer.expires_after(std::chrono::milliseconds(100));
  timer.async_wait([&](const boost::system::error_code& ec) {
    if (ec) return;
    if (stop) {
      ioc.stop();
      return;
    }
    watch_stop(timer, stop, ioc);
  });
}

int run_serve(const ServeOptions& o) {
  std::vector<serve::ServedRoot> roots;
  std::string error;
  if (!serve::make_roots(o.dirs, roots, &error)) {
    std::cerr << "referee serve: " << error << "\n";
    return 2;
  }
  if (o.poll_ms < 10 || o.poll_ms > 10000) {
    std::cerr << "referee serve: --poll-ms must be 10..10000\n";
    return 2;
  }
  const std::atomic<bool>& stop = install_stop_signals();
  boost::asio::io_context ioc(1);
  serve::SiteOptions site_options;
  site_options.poll_interval = std::chrono::milliseconds(o.poll_ms);
  site_options.spectators_full = o.spectators == "full";
  serve::ArenaSite site(ioc, roots, site_options);
  serve::HttpServerOptions options;
  options.listen = o.listen;
  options.allowed_hosts = o.allow_hosts;
  options.trusted_proxy = o.trusted_proxy;
  options.plan_body = [&site](const serve::HttpRequest& head) { return site.plan_body(head); };
  auto server = serve::HttpServer::start(
      ioc, options, [&site](const serve::HttpRequest& r) { return site.handle(r); }, &error);
  if (!server) {
    std::cerr << "referee serve: " << error << "\n";
    return 1;
  }
  if (const std::string w = serve::beyond_loopback_warning(
          o.listen, "can read every log and page under the served folders");
      !w.empty())
    std::cerr << "referee serve: " << w << "\n";
  std::cout << "Serving " << roots.size() << " folder" << (roots.size() == 1 ? "" : "s")
            << " at http://" << server->host() << ":" << server->port() << "/  (Ctrl-C stops)"
            << std::endl;
  boost::asio::steady_timer timer(ioc);
  watch_stop(timer, stop, ioc);
  ioc.run();
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve tournament output folders (or folders of match logs) as web pages: every\n"
      "tournament with its SPRT, standings, head to head, pairings and decision times, its\n"
      "matches (filtered by bot or fault), each match's replay (also as one seat saw it), and\n"
      "matches still being played, followed live as the referee appends to their logs; pages\n"
      "of a running tournament refresh themselves. Only files under the given folders are\n"
      "served.\n"
      "Requests must name this server in their Host header (loopback names, the address\n"
      "listened on, or a name given with --allow-host); each client address holds at most 128\n"
      "connections, and an idle one is closed when a newcomer needs its place.\n"
      "docs/SERVE.md describes the pages.");
  cmd->add_option("dirs", o->dirs,
                  "Folders to serve: tournament output folders, folders holding several of them "
                  "(e.g. tournaments-out), or folders of match logs (e.g. logs)")
      ->required()
      ->expected(1, -1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--listen", o->listen,
                  "HOST:PORT to listen on; loopback by default, port 0 picks a free one. Anyone "
                  "who can reach the address can read every served log")
      ->capture_default_str();
  cmd->add_option("--allow-host", o->allow_hosts,
                  "A host name the pages may be reached by besides loopback names and IP "
                  "addresses (e.g. the machine's name when listening on 0.0.0.0); requests "
                  "naming any other host are refused (403), so a web page elsewhere cannot "
                  "read the logs through a name it points at this machine")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--trusted-proxy", o->trusted_proxy,
                  "The IP address of a reverse proxy in front of this server: its requests are "
                  "taken as from the last address of their X-Forwarded-For header, so that "
                  "sign-in attempts are limited per visitor rather than for all at once");
  cmd->add_option("--poll-ms", o->poll_ms,
                  "How often a log being watched live is checked for new lines")
      ->capture_default_str();
  cmd->add_option("--spectators", o->spectators,
                  "What a match still being played shows: public (only what every seat sees: "
                  "the line, hand sizes, scores; its log file once it is over) or full (every "
                  "hand and the seed, as after the match; a bot that can reach this server "
                  "could read its opponents' hands)")
      ->check(CLI::IsMember({"public", "full"}))
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run_serve(*o); });
}

}  // namespace allfives::referee
