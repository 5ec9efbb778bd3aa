#include "serve/human_seat.h"

#include <poll.h>
#include <unistd.h>

#include <allfives/bot/bot.h>
#include <allfives/bot/server.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "log/json_text.h"
#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"
#include "serve/http_server.h"

namespace allfives::referee {
// embed_file.cmake defines the page in this namespace.
extern const unsigned char kHumanPage[];
extern const unsigned long kHumanPageSize;
}  // namespace allfives::referee

namespace allfives::referee::serve {
namespace {

std::string tile_words(Tile t) {
  return std::to_string(t.hi()) + "-" + std::to_string(t.lo());
}

// What the seat knows, kept from the SDK's calls: exactly the bot's information.
struct Table {
  int seat = 0;
  Config config;
  std::vector<std::string> names;
  int hand_index = -1;
  TileSet hand;
  Line line;
  std::array<int, kMaxPlayers> sizes{};
  int boneyard = 0;
  std::vector<int> scores;
  int to_move = -1;
  PlayList legal;
  std::array<TileSet, kMaxPlayers> revealed{};  // at a hand's end, every hand is public
  bool show_revealed = false;
  std::deque<std::string> events;  // the latest things that happened, in words
  bool over = false;
  std::string result;
};

std::string name_of(const Table& t, int seat) {
  if (seat == t.seat) return "you";
  if (seat >= 0 && seat < static_cast<int>(t.names.size()) &&
      !t.names[static_cast<size_t>(seat)].empty())
    return t.names[static_cast<size_t>(seat)] + " (seat " + std::to_string(seat) + ")";
  return "seat " + std::to_string(seat);
}

// The JSON the page receives: nothing but this seat's information.
std::string table_json(const Table& t, long long seq, long long ms_left) {
  const int n = num_players(t.config.format);
  std::string o =
      "{\"seq\":" + std::to_string(seq) + ",\"seat\":" + std::to_string(t.seat) + ",\"format\":";
  append_json_string(o, format_label(t.config.format));
  o += ",\"target\":" + std::to_string(t.config.target) + ",\"names\":[";
  for (int s = 0; s < n; ++s) {
    if (s) o += ',';
    append_json_string(o,
                       s < static_cast<int>(t.names.size()) ? t.names[static_cast<size_t>(s)] : "");
  }
  o += "],\"sides\":[";
  for (int s = 0; s < n; ++s) o += (s ? "," : "") + std::to_string(side_of(t.config.format, s));
  o += "],\"hand_index\":" + std::to_string(t.hand_index) + ",\"hand\":\"" + tile_pairs(t.hand) +
       "\",\"line\":\"" + line_pairs(t.line) + "\",\"count\":" + std::to_string(t.line.count()) +
       ",\"sizes\":[";
  for (int s = 0; s < n; ++s) o += (s ? "," : "") + std::to_string(t.sizes[static_cast<size_t>(s)]);
  o += "],\"boneyard\":" + std::to_string(t.boneyard) + ",\"scores\":[";
  for (size_t s = 0; s < t.scores.size(); ++s) o += (s ? "," : "") + std::to_string(t.scores[s]);
  o += "],\"to_move\":" + std::to_string(t.to_move) + ",\"legal\":[";
  for (int i = 0; i < t.legal.size(); ++i) {
    const Play p = t.legal[i];
    o += std::string(i ? "," : "") + "{\"tile\":\"" + static_cast<char>('0' + p.tile.hi()) +
         static_cast<char>('0' + p.tile.lo()) + "\",\"end\":\"" +
         (t.line.empty()        ? ""
          : p.end == End::kLeft ? "left"
                                : "right") +
         "\"}";
  }
  o += "],\"ms_left\":" + std::to_string(ms_left);
  if (t.show_revealed) {
    o += ",\"revealed\":[";
    for (int s = 0; s < n; ++s) {
      if (s) o += ',';
      o += "\"" + tile_pairs(t.revealed[static_cast<size_t>(s)]) + "\"";
    }
    o += "]";
  }
  o += ",\"events\":[";
  for (size_t i = 0; i < t.events.size(); ++i) {
    if (i) o += ',';
    append_json_string(o, t.events[i]);
  }
  o += "],\"over\":" + std::string(t.over ? "true" : "false") + ",\"result\":";
  append_json_string(o, t.result);
  return o + "}";
}

}  // namespace

// Shared between the bot (the SDK's thread), the page's server (its own thread) and the
// terminal: the table, the decision waiting for a person, and the pages watching.
struct HumanSeat::Impl {
  HumanSeatOptions options;
  std::mutex mu;
  std::condition_variable cv;
  Table table;
  long long seq = 0;
  std::chrono::steady_clock::time_point deadline{};
  std::optional<int> chosen;  // the index into table.legal the person picked
  bool person_seen = false;
  std::vector<std::shared_ptr<EventSink>> sinks;
  std::atomic<bool> shutting_down{false};  // the match is over or aborted: stop waiting

  boost::asio::io_context ioc{1};
  std::unique_ptr<HttpServer> http;
  std::thread http_thread;
  std::unique_ptr<bot::BotServer> bot_server;

  // Terminal: the log frames already shown.
  int tty_shown = 0;
  std::string tty_typed;  // typed ahead: lines not yet used

  long long ms_left_locked() const {
    if (table.to_move != table.seat || table.legal.empty()) return 0;
    return std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                      deadline - std::chrono::steady_clock::now())
                                      .count());
  }

  // Sends the table to every page (call with mu held).
  void publish_locked() {
    ++seq;
    if (!options.web) return;
    auto frame = std::make_shared<const std::string>(
        EventSink::event_frame("", table_json(table, seq, ms_left_locked())));
    std::erase_if(sinks, [](const auto& s) { return s->closed(); });
    for (const auto& s : sinks) s->send(frame);
  }

  void note_locked(std::string text) {
    table.events.push_back(std::move(text));
    while (table.events.size() > 14) table.events.pop_front();
  }

  // Sleeps until `t`, or until the match is stopped.
  void wait_out(std::chrono::steady_clock::time_point t) {
    std::unique_lock lock(mu);
    cv.wait_until(lock, t, [&] { return shutting_down.load(); });
  }

  HttpResponse handle(const HttpRequest& req);
  Play decide(const View& view, const bot::Clock& clock);
  Play decide_tty(const View& view, std::chrono::steady_clock::time_point deadline);
};

namespace {

class HumanBot final : public bot::Bot {
 public:
  explicit HumanBot(HumanSeat::Impl& seat) : seat_(seat) {}

  void on_match_start(const bot::MatchInfo& m) override {
    std::lock_guard lock(seat_.mu);
    Table& t = seat_.table;
    t = Table{};
    t.seat = m.seat;
    t.config = m.config;
    t.names = m.seat_names;
    t.scores.assign(static_cast<size_t>(m.num_sides), 0);
    seat_.note_locked("The match starts: you are seat " + std::to_string(m.seat) + ", " +
                      std::to_string(m.move_time.count() / 1000) + " s per move plus a " +
                      std::to_string(m.time_bank.count() / 1000) + " s bank.");
    seat_.publish_locked();
  }

  void on_hand_start(const bot::HandStartInfo& h) override {
    std::lock_guard lock(seat_.mu);
    Table& t = seat_.table;
    const int n = num_players(t.config.format);
    t.hand_index = h.hand_index;
    t.hand = h.tiles;
    t.line = Line{};
    t.show_revealed = false;
    for (int s = 0; s < n; ++s) t.sizes[static_cast<size_t>(s)] = hand_size(t.config.format);
    t.boneyard = kNumTiles - n * hand_size(t.config.format);
    seat_.note_locked("Hand " + std::to_string(h.hand_index + 1) + ": " + name_of(t, h.opener) +
                      " open" + (h.opener == t.seat ? "" : "s") +
                      (h.open_rule == OpenRule::kWinnerChooses
                           ? " with any tile"
                           : " with " + tile_words(h.open_with)));
    seat_.publish_locked();
  }

  void on_event(const bot::PublicEvent& e) override {
    std::lock_guard lock(seat_.mu);
    Table& t = seat_.table;
    const auto s = static_cast<size_t>(e.seat);
    switch (e.kind) {
      case EventKind::kPlay: {
        t.line.place(e.play.tile, e.play.end, e.seat);
        if (t.sizes[s] > 0) --t.sizes[s];
        if (e.seat == t.seat) t.hand.remove(e.play.tile);
        if (e.points > 0 && e.side >= 0 && static_cast<size_t>(e.side) < t.scores.size())
          t.scores[static_cast<size_t>(e.side)] += e.points;
        seat_.note_locked(
            name_of(t, e.seat) + " played " + tile_words(e.play.tile) +
            (t.line.size() > 1 ? e.play.end == End::kLeft ? " on the left" : " on the right" : "") +
            ", count " + std::to_string(e.count) +
            (e.points > 0 ? ", +" + std::to_string(e.points) : ""));
        break;
      }
      case EventKind::kDraw:
        t.sizes[s] += e.count;
        t.boneyard = std::max(0, t.boneyard - e.count);
        if (e.seat == t.seat)
          for (int i = 0; i < kNumTiles; ++i)
            if (e.tiles.contains(Tile::from_index(i))) t.hand.add(Tile::from_index(i));
        seat_.note_locked(name_of(t, e.seat) + " drew " + std::to_string(e.count) + " tile" +
                          (e.count == 1 ? "" : "s"));
        break;
      case EventKind::kPass:
        seat_.note_locked(name_of(t, e.seat) + " passed");
        break;
      default:
        break;
    }
    seat_.publish_locked();
  }

  void on_hand_end(const bot::HandEndInfo& h) override {
    std::lock_guard lock(seat_.mu);
    Table& t = seat_.table;
    t.scores = h.scores;
    t.revealed = h.hands;
    t.show_revealed = true;
    t.to_move = -1;
    t.legal = PlayList{};
    std::string words = "Hand " + std::to_string(h.hand_index + 1) + " ends: ";
    words += h.kind == HandEndKind::kDomino ? name_of(t, h.domino_seat) + " went out" : "blocked";
    if (h.points > 0)
      words += ", +" + std::to_string(h.points) + " for side " + std::to_string(h.winner_side);
    seat_.note_locked(words);
    seat_.publish_locked();
  }

  void on_match_end(const bot::MatchEndInfo& m) override {
    std::lock_guard lock(seat_.mu);
    Table& t = seat_.table;
    t.over = true;
    t.to_move = -1;
    t.legal = PlayList{};
    if (!m.scores.empty()) t.scores = m.scores;
    const int my_side = side_of(t.config.format, t.seat);
    if (m.reason == "fault")
      t.result =
          (m.fault_seat == t.seat ? "You forfeited: "
                                  : "Seat " + std::to_string(m.fault_seat) + " forfeited: ") +
          m.fault_reason;
    else if (m.winner_side < 0)
      t.result = "A draw.";
    else
      t.result = m.winner_side == my_side ? "You won!" : "You lost.";
    seat_.note_locked("The match is over (" + m.reason + "). " + t.result);
    seat_.publish_locked();
    if (!seat_.options.web) {
      std::cout << "\n" << t.result << "\n" << std::flush;
    }
  }

  Play choose_play(const View& view, const bot::Clock& clock) override {
    return seat_.decide(view, clock);
  }

 private:
  HumanSeat::Impl& seat_;
};

}  // namespace

Play HumanSeat::Impl::decide(const View& view, const bot::Clock& clock) {
  // Answer a little before the referee's deadline, so the transport's delay is covered.
  const auto until = clock.hard_deadline() - std::chrono::milliseconds(150);
  {
    std::unique_lock lock(mu);
    table.hand = view.hand();
    table.line = view.line();
    for (int s = 0; s < view.num_players(); ++s)
      table.sizes[static_cast<size_t>(s)] = view.hand_size(s);
    table.boneyard = view.boneyard_size();
    for (size_t s = 0; s < table.scores.size(); ++s)
      table.scores[s] = view.score(static_cast<int>(s));
    table.to_move = view.seat();
    table.legal = view.legal_plays();
    table.show_revealed = false;
    deadline = until;
    chosen.reset();
    publish_locked();
    if (options.web) {
      cv.wait_until(lock, until, [&] { return chosen.has_value() || shutting_down; });
    }
  }
  std::optional<int> pick;
  if (!options.web) {
    const Play p = decide_tty(view, until);
    std::lock_guard lock(mu);
    table.to_move = -1;
    table.legal = PlayList{};
    return p;
  }
  std::unique_lock lock(mu);
  pick = chosen;
  table.to_move = -1;
  table.legal = PlayList{};
  if (!pick) {
    if (shutting_down) return view.legal_plays()[0];  // nobody is waiting for the answer
    // The person let the clock run out: answer late, so the referee records the timeout.
    note_locked("Your time ran out.");
    publish_locked();
    cv.wait_until(lock, clock.hard_deadline() + std::chrono::milliseconds(400),
                  [&] { return shutting_down.load(); });
    return view.legal_plays()[0];
  }
  publish_locked();
  return view.legal_plays()[*pick];
}

Play HumanSeat::Impl::decide_tty(const View& view, std::chrono::steady_clock::time_point until) {
  // The table as `referee replay --seat` draws it, from the log as it stands. The referee
  // appends the records of what led here while the request travels, so wait briefly for them.
  Replay replay;
  std::vector<Frame> frames;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
  while (true) {
    LogError error;
    replay = Replay{};
    load_replay_file(options.log_path, replay, error);
    frames = build_frames(replay, view.seat());
    const bool current = !replay.steps.empty() &&
                         replay.steps.back().table.seat_to_move == view.seat() &&
                         replay.steps.back().table.line.size() == view.line().size() &&
                         replay.steps.back().table.hand_index == view.hand_index();
    if (current || std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  TerminalOptions topt;
  topt.viewer = view.seat();
  topt.color = ::isatty(STDOUT_FILENO) == 1 && !std::getenv("NO_COLOR");
  std::string out;
  if (tty_shown == 0 && !frames.empty()) out += render_heading(replay, topt);
  // What happened since the last decision, a line each, then the table now.
  for (int i = tty_shown; i + 1 < static_cast<int>(frames.size()); ++i)
    out += "  " + frames[static_cast<size_t>(i)].text + "\n";
  if (!frames.empty()) out += render_frame(replay, frames.back(), topt);
  tty_shown = static_cast<int>(frames.size());
  const PlayList& legal = view.legal_plays();
  out += "Your plays:";
  for (int i = 0; i < legal.size(); ++i) {
    out += "  " + std::to_string(i + 1) + ") " + tile_words(legal[i].tile);
    if (!view.line().empty()) out += legal[i].end == End::kLeft ? " left" : " right";
  }
  out += "\n";
  std::cout << out << std::flush;
  std::string& typed = tty_typed;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (shutting_down) return legal[0];  // the match was stopped
    if (left.count() <= 0) {
      std::cout << "\nYour time ran out.\n" << std::flush;
      wait_out(until + std::chrono::milliseconds(550));
      return legal[0];
    }
    if (typed.find('\n') == std::string::npos)
      std::cout << "Play 1-" << legal.size() << " (" << (left.count() + 999) / 1000
                << " s left): " << std::flush;
    if (typed.find('\n') == std::string::npos) {
      pollfd p{STDIN_FILENO, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      if (r <= 0) continue;
      char buf[256];
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n <= 0) {  // stdin closed: nobody can answer any more
        std::cout << "\nNo more input: the seat waits for its time to run out.\n" << std::flush;
        wait_out(until + std::chrono::milliseconds(550));
        return legal[0];
      }
      typed.append(buf, static_cast<size_t>(n));
    }
    size_t nl;
    while ((nl = typed.find('\n')) != std::string::npos) {
      const std::string line = typed.substr(0, nl);
      typed.erase(0, nl + 1);
      int k = 0;
      bool digits = !line.empty();
      for (char c : line) {
        if (c == ' ' || c == '\r') continue;
        if (c < '0' || c > '9' || k > 1000) {
          digits = false;
          break;
        }
        k = k * 10 + (c - '0');
      }
      if (digits && k >= 1 && k <= legal.size()) return legal[k - 1];
      std::cout << "Type a number from 1 to " << legal.size() << ".\n";
    }
  }
}

HttpResponse HumanSeat::Impl::handle(const HttpRequest& req) {
  const std::string_view path = target_path(req.target);
  const std::string token = query_value(req.target, "token");
  // Compare without stopping at the first difference.
  bool ok = token.size() == options.token.size();
  unsigned diff = 0;
  for (size_t i = 0; ok && i < token.size(); ++i)
    diff |= static_cast<unsigned>(token[i] ^ options.token[i]);
  ok = ok && diff == 0 && !options.token.empty();
  if (path != "/" && path != "/events" && path != "/play")
    return text_response(404, "no such page");
  if (!ok) return text_response(403, "this seat's page needs the token printed by the referee");
  if (path == "/") {
    if (req.method != "GET") return text_response(405, "GET only");
    return HttpResponse{
        200,
        "text/html; charset=utf-8",
        std::string(reinterpret_cast<const char*>(referee::kHumanPage), referee::kHumanPageSize),
        {},
        nullptr};
  }
  if (path == "/events") {
    if (req.method != "GET") return text_response(405, "GET only");
    HttpResponse res;
    res.on_event_stream = [this](std::shared_ptr<EventSink> sink) {
      std::lock_guard lock(mu);
      sink->send(std::make_shared<const std::string>(
          EventSink::event_frame("", table_json(table, seq, ms_left_locked()))));
      sinks.push_back(std::move(sink));
      person_seen = true;
      cv.notify_all();
    };
    return res;
  }
  // POST /play: "seq=S&play=I", the play chosen from the table the page was sent.
  if (req.method != "POST") return text_response(405, "POST only");
  const std::string body = "?" + req.body;
  const std::string seq_text = query_value(body, "seq"), play_text = query_value(body, "play");
  long long s = -1;
  int i = -1;
  try {
    s = std::stoll(seq_text);
    i = std::stoi(play_text);
  } catch (const std::exception&) {
    return text_response(400, "the body must be seq=N&play=I");
  }
  std::lock_guard lock(mu);
  if (table.to_move != table.seat || table.legal.empty() || chosen)
    return text_response(409, "it is not your turn");
  if (i < 0 || i >= table.legal.size()) return text_response(400, "no such play");
  (void)s;  // any table of this decision will do: the plays offered stay the same until it
  chosen = i;
  cv.notify_all();
  HttpResponse res = text_response(200, "played");
  return res;
}

std::unique_ptr<HumanSeat> HumanSeat::start(const HumanSeatOptions& options, std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  Impl* raw = impl.get();
  if (options.web) {
    HttpServerOptions h;
    h.listen = options.serve;
    h.max_connections = 64;
    impl->http = HttpServer::start(
        impl->ioc, h, [raw](const HttpRequest& r) { return raw->handle(r); }, error);
    if (!impl->http) return nullptr;
    impl->http_thread = std::thread([raw] { raw->ioc.run(); });
  }
  bot::ServerOptions so;
  so.listen = options.bot_listen;
  impl->bot_server = bot::BotServer::start(
      so, {"human", "1"}, [raw](const bot::MatchInfo&) { return std::make_unique<HumanBot>(*raw); },
      error);
  if (!impl->bot_server) {
    if (impl->http) {
      impl->ioc.stop();
      impl->http_thread.join();
    }
    return nullptr;
  }
  return std::unique_ptr<HumanSeat>(new HumanSeat(std::move(impl)));
}

HumanSeat::HumanSeat(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HumanSeat::~HumanSeat() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->shutting_down = true;
    impl_->cv.notify_all();
  }
  if (impl_->bot_server) impl_->bot_server->shutdown(std::chrono::milliseconds(500));
  if (impl_->http) {
    impl_->ioc.stop();
    impl_->http_thread.join();
    // The pages' connections belong to the io_context: they must go while it still exists.
    std::lock_guard lock(impl_->mu);
    impl_->sinks.clear();
  }
  impl_->http.reset();
}

std::string HumanSeat::url() const {
  if (!impl_->http) return "";
  return "http://" + impl_->http->host() + ":" + std::to_string(impl_->http->port()) +
         "/?token=" + impl_->options.token;
}

bool HumanSeat::wait_for_person(const std::atomic<bool>& stop) {
  if (!impl_->options.web) return true;
  std::unique_lock lock(impl_->mu);
  while (!impl_->person_seen) {
    if (stop) return false;
    impl_->cv.wait_for(lock, std::chrono::milliseconds(100));
  }
  return true;
}

void HumanSeat::finish(std::chrono::milliseconds grace) {
  if (!impl_->options.web) return;
  std::this_thread::sleep_for(grace);
  std::lock_guard lock(impl_->mu);
  for (const auto& s : impl_->sinks) s->close();
}

std::string random_token() {
  std::random_device rd;  // the system's random source (getrandom)
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    uint32_t v = rd();
    for (int k = 0; k < 8; ++k, v >>= 4) out += kHex[v & 15];
  }
  return out;
}

}  // namespace allfives::referee::serve
