#include "serve/human_seat.h"

#include <allfives/bot/bot.h>
#include <allfives/bot/server.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "allfives/core/knowledge.h"
#include "allfives/core/rng.h"
#include "allfives/engine/evaluate.h"
#include "log/json_text.h"
#include "log/log_reader.h"
#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "serve/http_server.h"
#include "serve/human_table.h"
#include "serve/human_tty.h"
#include "serve/log_folders.h"
#include "serve/review_jobs.h"

namespace allfives::referee {
// embed_file.cmake defines the page in this namespace.
extern const unsigned char kHumanPage[];
extern const unsigned long kHumanPageSize;
}  // namespace allfives::referee

namespace allfives::referee::serve {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Answer a little before the referee's deadline, so the transport's delay is covered.
constexpr milliseconds kAnswerMargin{150};

// The strong search's choice at the seat's decision, from the seat's view and knowledge only
// (as the strong sample bot and the review value plays); it stops at `until` or once `stop`.
int strong_choice(const View& view, const Knowledge& knowledge, uint64_t seed,
                  Clock::time_point until, const std::atomic<bool>& stop) {
  engine::EvalConfig config;
  config.worlds = 400;
  config.seed = seed;
  engine::HandSolver solver;
  engine::Evaluation ev;
  engine::evaluate(view, &knowledge, config, solver, ev,
                   [&](int) { return stop.load() || Clock::now() >= until; });
  int best = -1;
  for (int i = 0; i < static_cast<int>(ev.options.size()); ++i)
    if (best < 0 || ev.mean(i, engine::Utility::kWin) > ev.mean(best, engine::Utility::kWin))
      best = i;
  return best;
}

// The bots' names as the log's header gives them (the names of their Hellos), or empty.
std::vector<std::string> names_in_header(const std::string& log) {
  std::string head;
  if (log.empty() || !read_bounded(log, 1 << 20, head, true) || head.empty()) return {};
  v1::LogRecord rec;
  if (!parse_log_line(std::string_view(head).substr(0, head.find('\n')), rec, nullptr) ||
      !rec.has_header())
    return {};
  std::vector<std::string> names;
  for (const auto& b : rec.header().bots()) names.push_back(b.display_name());
  return names;  // nothing else of the header: it holds the seed
}

// The value of `key` in a form body as sent, undecoded, if the key is there: an opponent's id
// is compared as sent, so no escape (%00, %2F) can turn into one.
std::optional<std::string_view> raw_form_value(std::string_view body, std::string_view key) {
  while (true) {
    const size_t amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key)
      return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (amp == std::string_view::npos) return std::nullopt;
    body.remove_prefix(amp + 1);
  }
}

bool token_matches(const std::string& given, const std::string& token) {
  // Compared without stopping at the first difference.
  if (given.size() != token.size() || token.empty()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned>(given[i] ^ token[i]);
  return diff == 0;
}

}  // namespace

// Shared between the bot (the SDK's thread), the page's server (its own thread) and the
// terminal: the table, the decision waiting for a person, and the pages watching.
struct HumanSeat::Impl {
  HumanSeatOptions options;
  std::mutex mu;
  std::condition_variable cv;
  HumanTable table;
  long long seq = 0;
  long long decision_seq = -1;  // the first table of the decision waiting, -1 if none
  Clock::time_point move_end{}, answer_by{};
  std::optional<int> chosen;        // the index into table.legal the person picked
  std::atomic<bool> picked{false};  // chosen is set: a suggestion being computed stops
  bool hint_on = false;             // the person wants the strong search's suggestion
  std::string hint_shown;           // the suggestion on the table as the person played, or ""
  Knowledge knowledge;              // what the seat has observed, for the suggestion
  bool timed_out = false;           // the person's time ran out in this match
  bool person_seen = false;
  int matches = 0;
  std::array<int, 3> tally{};  // this session's matches won, lost and drawn
  std::string log_path;        // the match being played
  std::string finished_log;    // the last match over, for /replay
  std::string opponent;        // the id (options.opponents) of the opponent of this match
  enum class After { kWaiting, kRematch, kLeave } after = After::kWaiting;
  std::vector<std::shared_ptr<EventSink>> sinks;
  std::atomic<bool> shutting_down{false};  // the match is over or aborted: stop waiting

  boost::asio::io_context ioc{1};
  std::unique_ptr<HttpServer> http;
  std::thread http_thread;
  std::unique_ptr<bot::BotServer> bot_server;
  TerminalSeat terminal;

  ClockNow clock_locked() const {
    ClockNow c;
    if (decision_seq < 0 || table.legal.empty()) return c;
    const auto now = Clock::now();
    const auto ms = [](Clock::duration d) {
      return std::max<long long>(0, std::chrono::duration_cast<milliseconds>(d).count());
    };
    c.running = true;
    c.move_ms = ms(move_end - now);
    c.bank_ms = ms(answer_by - std::max(now, move_end));
    return c;
  }

  // Sends the table to every page (call with mu held).
  void publish_locked() {
    ++seq;
    if (!table.names_from_log) {
      const std::vector<std::string> names = names_in_header(log_path);
      if (names.size() == table.names.size()) {
        table.names = names;
        table.names_from_log = true;
      }
    }
    if (!options.web) return;
    auto frame = std::make_shared<const std::string>(EventSink::event_frame("", json_locked()));
    std::erase_if(sinks, [](const auto& s) { return s->closed(); });
    for (const auto& s : sinks) s->send(frame);
  }

  // The table as the page receives it, with the opponents "play again" offers and this
  // match's (call with mu held).
  std::string json_locked() const {
    std::string out = table_json(table, seq, clock_locked());
    if (options.opponents.empty() || out.empty() || out.back() != '}') return out;
    out.pop_back();
    out += ",\"opponents\":[";
    for (const HumanOpponent& o : options.opponents) {
      if (out.back() != '[') out += ',';
      out += "{\"id\":";
      append_json_string(out, o.id);
      out += ",\"name\":";
      append_json_string(out, o.name);
      out += '}';
    }
    out += "],\"opponent\":";
    append_json_string(out, opponent);
    return out + "}";
  }

  // The offered opponent with this id, or null: the page's choice is looked up, never run.
  const HumanOpponent* offered(const std::string& id) const {
    for (const HumanOpponent& o : options.opponents)
      if (o.id == id) return &o;
    return nullptr;
  }

  int open_pages_locked() {
    std::erase_if(sinks, [](const auto& s) { return s->closed(); });
    return static_cast<int>(sinks.size());
  }

  // Sleeps until `t`, or until the match is stopped.
  void wait_out(Clock::time_point t) {
    std::unique_lock lock(mu);
    cv.wait_until(lock, t, [&] { return shutting_down.load(); });
  }

  HttpResponse handle(const HttpRequest& req);
  HttpResponse play(const HttpRequest& req);
  HttpResponse rematch(const HttpRequest& req);
  HttpResponse replay_page();
  HttpResponse review(const HttpRequest& req);
  // The person's own reviewed decisions once the review of `log` is written: [{...},...].
  static std::string own_decisions_json(const std::string& log, int seat);
  ReviewJobs reviews{1};  // one person: one review at a time
  Play decide(const View& view, const bot::Clock& clock);
};

namespace {

class HumanBot final : public bot::Bot {
 public:
  explicit HumanBot(HumanSeat::Impl& seat) : seat_(seat) {}

  void on_match_start(const bot::MatchInfo& m) override {
    std::lock_guard lock(seat_.mu);
    HumanTable& t = seat_.table;
    t = HumanTable{};
    t.match_number = ++seat_.matches;
    t.seat = m.seat;
    t.config = m.config;
    t.names = m.seat_names;
    t.scores.assign(static_cast<size_t>(m.num_sides), 0);
    t.move_time = m.move_time;
    t.bank = m.time_bank;
    t.pace_ms = seat_.options.pace_ms;
    t.hint_on = seat_.hint_on;
    seat_.knowledge = Knowledge(m.config.format, m.seat);
    t.tally = seat_.tally;
    t.timeline.push_back({0, t.scores});
    seat_.decision_seq = -1;
    seat_.timed_out = false;
    seat_.finished_log.clear();
    seat_.after = HumanSeat::Impl::After::kWaiting;
    seat_.terminal.new_match();
    note(t, "The match starts: you are seat " + std::to_string(m.seat) + ", " +
                std::to_string(m.move_time.count() / 1000) + " s per move plus a " +
                std::to_string(m.time_bank.count() / 1000) + " s bank for the whole match.");
    seat_.publish_locked();
  }

  void on_hand_start(const bot::HandStartInfo& h) override {
    std::lock_guard lock(seat_.mu);
    HumanTable& t = seat_.table;
    const int n = num_players(t.config.format);
    t.hand_index = h.hand_index;
    seat_.knowledge.start_hand(h.hand_index, h.open_rule, h.open_with);
    t.hand = h.tiles;
    t.line = Line{};
    t.last = LastPlay{};
    t.show_revealed = false;
    t.to_move = h.opener;
    for (int s = 0; s < n; ++s) t.sizes[static_cast<size_t>(s)] = hand_size(t.config.format);
    t.boneyard = kNumTiles - n * hand_size(t.config.format);
    note(t, "Hand " + std::to_string(h.hand_index + 1) + ": " + name_of(t, h.opener) + " open" +
                (h.opener == t.seat ? "" : "s") +
                (h.open_rule == OpenRule::kWinnerChooses ? " with any tile"
                                                         : " with " + tile_words(h.open_with)));
    seat_.publish_locked();
  }

  void on_event(const bot::PublicEvent& e) override {
    std::lock_guard lock(seat_.mu);
    HumanTable& t = seat_.table;
    const auto s = static_cast<size_t>(e.seat);
    const int n = num_players(t.config.format);
    seat_.knowledge.observe(e);
    switch (e.kind) {
      case EventKind::kPlay: {
        const bool opened = t.line.empty();
        t.line.place(e.play.tile, e.play.end, e.seat);
        if (t.sizes[s] > 0) --t.sizes[s];
        if (e.seat == t.seat) t.hand.remove(e.play.tile);
        if (e.points > 0 && e.side >= 0 && static_cast<size_t>(e.side) < t.scores.size()) {
          t.scores[static_cast<size_t>(e.side)] += e.points;
          t.timeline.push_back({t.hand_index, t.scores});
        }
        t.last = LastPlay{e.seat, e.play.tile, e.play.end, opened, e.count, e.points};
        t.to_move = (e.seat + 1) % n;
        note(t, play_words(t, e.seat, e.play.tile, e.play.end, opened, e.count, e.points));
        break;
      }
      case EventKind::kDraw:
        t.sizes[s] += e.count;
        t.boneyard = std::max(0, t.boneyard - e.count);
        t.to_move = e.seat;  // a seat that drew plays or passes next
        if (e.seat == t.seat)
          for (int i = 0; i < kNumTiles; ++i)
            if (e.tiles.contains(Tile::from_index(i))) t.hand.add(Tile::from_index(i));
        note(t, name_of(t, e.seat) + " drew " + std::to_string(e.count) + " tile" +
                    (e.count == 1 ? "" : "s"));
        break;
      case EventKind::kPass:
        t.to_move = (e.seat + 1) % n;
        note(t, name_of(t, e.seat) + " passed");
        break;
      default:
        break;
    }
    seat_.publish_locked();
  }

  void on_hand_end(const bot::HandEndInfo& h) override {
    std::lock_guard lock(seat_.mu);
    HumanTable& t = seat_.table;
    t.scores = h.scores;
    t.revealed = h.hands;
    t.show_revealed = true;
    t.to_move = -1;
    t.legal = PlayList{};
    HandSummary sum;
    sum.hand = h.hand_index;
    sum.how = h.kind == HandEndKind::kDomino ? name_of(t, h.domino_seat) + " went out" : "blocked";
    sum.points = h.points;
    sum.side = h.points > 0 ? h.winner_side : -1;
    sum.scores = h.scores;
    t.hands.push_back(sum);
    if (t.timeline.empty() || t.timeline.back().scores != h.scores)
      t.timeline.push_back({h.hand_index, h.scores});
    note(t, "Hand " + std::to_string(h.hand_index + 1) + " ends: " + sum.how +
                (h.points > 0
                     ? ", +" + std::to_string(h.points) + " for " + side_words(t, h.winner_side)
                     : ""));
    seat_.publish_locked();
  }

  void on_match_end(const bot::MatchEndInfo& m) override {
    std::lock_guard lock(seat_.mu);
    MatchEnding f;
    f.reason = m.reason == "target"       ? v1::MATCH_END_REASON_TARGET
               : m.reason == "hand_limit" ? v1::MATCH_END_REASON_HAND_LIMIT
               : m.reason == "fault"      ? v1::MATCH_END_REASON_FAULT
                                          : v1::MATCH_END_REASON_ABORTED;
    f.winner_side = m.winner_side;
    f.scores = m.scores;
    f.placements = m.placements;
    // The seat is not told the fault's kind; its own time-out it knows. The match command's
    // account follows at once, with the kind.
    if (m.fault_seat >= 0)
      f.fault =
          Fault{m.fault_seat,
                m.fault_seat == seat_.table.seat && seat_.timed_out ? v1::FAULT_KIND_TIMEOUT
                                                                    : v1::FAULT_KIND_UNSPECIFIED,
                m.fault_reason};
    explain_end(seat_.table, f);
    seat_.decision_seq = -1;
    seat_.publish_locked();
  }

  Play choose_play(const View& view, const bot::Clock& clock) override {
    const Play play = seat_.decide(view, clock);
    // The log tells a play made with the strong search's help from the person's own.
    if (!seat_.hint_shown.empty()) set_comment("hint shown: " + seat_.hint_shown);
    return play;
  }

 private:
  HumanSeat::Impl& seat_;
};

}  // namespace

Play HumanSeat::Impl::decide(const View& view, const bot::Clock& clock) {
  const auto hard = clock.hard_deadline();
  std::unique_lock lock(mu);
  answer_by = hard - kAnswerMargin;
  move_end = std::min(clock.received + clock.move_time, answer_by);
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
  table.bank = clock.bank_left;
  table.bank_at_decision = clock.bank_left;
  chosen.reset();
  picked = false;
  table.hint = -1;
  decision_seq = seq + 1;  // the table published now
  publish_locked();
  std::optional<Play> pick;
  if (options.web) {
    bool hinted = false;
    while (cv.wait_until(lock, answer_by, [&] {
      return chosen.has_value() || shutting_down || (hint_on && !hinted);
    })) {
      if (chosen || shutting_down) break;
      // Asked for a suggestion: searched on this thread, which otherwise only waits for the
      // person, within the person's own time.
      hinted = true;
      const Knowledge k = knowledge;
      const auto until = std::min(Clock::now() + milliseconds(1500), answer_by - kAnswerMargin);
      const uint64_t seed = derive_seed(static_cast<uint64_t>(decision_seq), 0x48494e54);
      lock.unlock();
      const int best = strong_choice(view, k, seed, until, picked);
      lock.lock();
      if (!chosen && !shutting_down && best >= 0) {
        table.hint = best;
        publish_locked();
      }
    }
    if (chosen) pick = view.legal_plays()[*chosen];
  } else {
    lock.unlock();
    pick = terminal.decide(view, move_end, answer_by,
                           [this] { return shutting_down.load(); });  // throws SeatLeft
    lock.lock();
  }
  // What the bank keeps: the time the decision took beyond the move time is gone.
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - clock.received);
  table.bank = std::max(milliseconds(0),
                        clock.bank_left - std::max(milliseconds(0), took - clock.move_time));
  decision_seq = -1;
  hint_shown = pick && table.hint >= 0 ? to_string(view.legal_plays()[table.hint]) : "";
  table.legal = PlayList{};
  table.hint = -1;
  if (pick) {
    publish_locked();
    return *pick;
  }
  if (shutting_down) return view.legal_plays()[0];  // nobody is waiting for the answer
  // The person let the clock run out: answer late, so the referee records the timeout.
  table.bank = milliseconds(0);
  timed_out = true;
  note(table, "Your time ran out.");
  publish_locked();
  cv.wait_until(lock, hard + milliseconds(400), [&] { return shutting_down.load(); });
  return view.legal_plays()[0];
}

HttpResponse HumanSeat::Impl::handle(const HttpRequest& req) {
  const std::string_view path = target_path(req.target);
  if (path != "/" && path != "/events" && path != "/play" && path != "/replay" &&
      path != "/rematch" && path != "/leave" && path != "/review" && path != "/hint")
    return text_response(404, "no such page");
  if (!token_matches(query_value(req.target, "token"), options.token))
    return text_response(403, "this seat's page needs the token printed by the referee");
  if (path == "/review") return review(req);
  const bool post = path == "/play" || path == "/rematch" || path == "/leave" || path == "/hint";
  if (req.method != (post ? "POST" : "GET"))
    return text_response(405, post ? "POST only" : "GET only");
  if (path == "/") {
    HttpResponse res;
    res.body.assign(reinterpret_cast<const char*>(referee::kHumanPage), referee::kHumanPageSize);
    return res;
  }
  if (path == "/events") {
    HttpResponse res;
    res.on_event_stream = [this](std::shared_ptr<EventSink> sink) {
      std::lock_guard lock(mu);
      sink->send(std::make_shared<const std::string>(EventSink::event_frame("", json_locked())));
      sinks.push_back(std::move(sink));
      person_seen = true;
      cv.notify_all();
    };
    return res;
  }
  if (path == "/play") return play(req);
  if (path == "/replay") return replay_page();
  std::lock_guard lock(mu);
  if (path == "/hint") {
    hint_on = query_value("?" + req.body, "on") == "1";
    table.hint_on = hint_on;
    publish_locked();
    cv.notify_all();
    return text_response(200, hint_on ? "suggestions on" : "suggestions off");
  }
  if (path == "/leave") {
    after = After::kLeave;
    cv.notify_all();
    return text_response(200, "goodbye");
  }
  return rematch(req);
}

// POST /rematch: another match once this one is over, against "opponent=ID" if given (one of
// the ids offered, else the same opponent again). Called with mu held.
HttpResponse HumanSeat::Impl::rematch(const HttpRequest& req) {
  if (!table.over || !table.rematch) return text_response(409, "the match is not over yet");
  std::string choice = opponent;
  if (const auto sent = raw_form_value(req.body, "opponent")) {
    choice = std::string(*sent);
    // Without a list only the command line's bots ("") are offered.
    if (options.opponents.empty() ? !choice.empty() : !offered(choice))
      return text_response(400, "no such opponent: choose one of those the page offers");
  }
  const bool other = choice != opponent;
  opponent = choice;
  after = After::kRematch;
  table.rematch = false;
  const HumanOpponent* next = offered(choice);
  note(table, other && next
                  ? std::string("Another match is being set up, against ") + next->name + "…"
                  : std::string("Another match is being set up…"));
  publish_locked();
  cv.notify_all();
  return text_response(200, "another match starts");
}

// POST /play: "seq=S&play=I", play I of the table numbered S.
HttpResponse HumanSeat::Impl::play(const HttpRequest& req) {
  const std::string body = "?" + req.body;
  long long s = -1;
  int i = -1;
  try {
    s = std::stoll(query_value(body, "seq"));
    i = std::stoi(query_value(body, "play"));
  } catch (const std::exception&) {
    return text_response(400, "the body must be seq=N&play=I");
  }
  std::lock_guard lock(mu);
  if (decision_seq < 0 || table.legal.empty() || chosen)
    return text_response(409, "it is not your turn");
  // A table from before this decision offered other plays: a late click must not count.
  if (s < decision_seq || s > seq)
    return text_response(409, "this play answers table " + std::to_string(s) +
                                  ", not the decision now waiting (table " +
                                  std::to_string(decision_seq) + ")");
  if (i < 0 || i >= table.legal.size()) return text_response(400, "no such play");
  chosen = i;
  picked = true;
  cv.notify_all();
  return text_response(200, "played");
}

// The finished match's replay, as this seat saw it (the match is over: nothing is hidden
// that the seat would learn from it during play).
HttpResponse HumanSeat::Impl::replay_page() {
  std::string log;
  int viewer = 0;
  {
    std::lock_guard lock(mu);
    log = finished_log;
    viewer = table.seat;
  }
  if (log.empty()) return text_response(409, "the replay opens once the match is over");
  Replay replay;
  LogError error;
  if (!load_replay_file(log, replay, error) || replay.steps.empty())
    return text_response(500, "the match's log cannot be read: " + error.describe());
  HtmlOptions h;
  h.viewer = viewer;
  HttpResponse res;
  res.body = render_html(replay, build_frames(replay, viewer), h);
  return res;
}

// GET /review: how far the review of the person's decisions is, with them once it is written;
// POST /review starts it, once the match is over.
HttpResponse HumanSeat::Impl::review(const HttpRequest& req) {
  if (req.method != "GET" && req.method != "POST") return text_response(405, "GET or POST only");
  std::string log;
  int seat = 0;
  {
    std::lock_guard lock(mu);
    log = finished_log;
    seat = table.seat;
  }
  HttpResponse res;
  res.content_type = "application/json";
  ReviewJobStatus s;
  if (log.empty()) {
    s.state = "refused";
    s.error = "your decisions are reviewed once the match is over";
    res.status = 409;
  } else {
    s = req.method == "POST" ? reviews.start(log, seat) : reviews.status(log);
    if (s.state == "refused") res.status = 503;
  }
  res.body = status_json(s);
  if (s.state == "done") {
    res.body.pop_back();
    res.body += ",\"decisions\":" + own_decisions_json(log, seat) + "}";
  }
  return res;
}

std::string HumanSeat::Impl::own_decisions_json(const std::string& log, int seat) {
  std::string bytes, why;
  if (!read_log_file(log, bytes, &why)) return "[]";
  const std::optional<ReviewFile> review = current_review(log, bytes);
  if (!review) return "[]";
  std::string out = "[";
  for (const v1::ReviewDecision& d : review->decisions) {
    if (static_cast<int>(d.seat()) != seat) continue;
    if (out.size() > 1) out += ',';
    out += review_decision_json(d);
  }
  return out + "]";
}

std::unique_ptr<HumanSeat> HumanSeat::start(const HumanSeatOptions& options, std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->table.pace_ms = options.pace_ms;
  Impl* raw = impl.get();
  if (options.web) {
    HttpServerOptions h;
    h.listen = options.serve;
    h.max_connections = 64;
    h.max_per_client = 64;
    h.max_streams_per_client = 8;
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
    for (const auto& s : impl_->sinks) s->close();
  }
  if (impl_->bot_server) impl_->bot_server->shutdown(milliseconds(500));
  if (impl_->http) {
    // The pages hear the end of their streams before the server goes.
    std::this_thread::sleep_for(milliseconds(100));
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

void HumanSeat::set_log(const std::string& path) {
  std::lock_guard lock(impl_->mu);
  impl_->log_path = path;
  impl_->terminal.set_log(path);
}

HumanSeat::Arrival HumanSeat::wait_for_person(const std::atomic<bool>& stop, milliseconds limit) {
  if (!impl_->options.web) return Arrival::kOpened;
  const auto until = Clock::now() + limit;
  std::unique_lock lock(impl_->mu);
  while (!impl_->person_seen) {
    if (stop) return Arrival::kStopped;
    if (Clock::now() >= until) return Arrival::kTimedOut;
    impl_->cv.wait_for(lock, milliseconds(100));
  }
  return Arrival::kOpened;
}

void HumanSeat::match_over(const MatchResult& r) {
  std::lock_guard lock(impl_->mu);
  HumanTable& t = impl_->table;
  explain_end(t, r);
  if (!t.timeline.empty() && t.timeline.back().scores != t.scores)
    t.timeline.push_back({std::max(0, t.hand_index), t.scores});
  const int counted = t.outcome == "won"    ? 0
                      : t.outcome == "lost" ? 1
                      : t.outcome == "draw" ? 2
                                            : -1;
  if (counted >= 0) ++impl_->tally[static_cast<size_t>(counted)];
  t.tally = impl_->tally;
  impl_->decision_seq = -1;
  impl_->finished_log = impl_->log_path;
  t.replay = !impl_->log_path.empty() && r.reason != v1::MATCH_END_REASON_UNSPECIFIED;
  t.rematch = impl_->options.web;
  note(t, t.headline + ".");
  impl_->publish_locked();
  if (!impl_->options.web) impl_->terminal.show_end(t);
}

bool HumanSeat::wait_for_rematch(const std::atomic<bool>& stop, milliseconds limit,
                                 std::string* opponent) {
  if (!impl_->options.web) return false;
  const auto until = Clock::now() + limit;
  auto last_page = Clock::now();
  std::unique_lock lock(impl_->mu);
  while (true) {
    if (impl_->after == Impl::After::kRematch) {
      impl_->after = Impl::After::kWaiting;
      if (opponent) *opponent = impl_->opponent;
      return true;
    }
    const auto now = Clock::now();
    if (impl_->open_pages_locked() > 0) last_page = now;
    if (impl_->after == Impl::After::kLeave || stop || now >= until ||
        now - last_page > std::chrono::seconds(5)) {
      impl_->table.rematch = false;
      impl_->publish_locked();
      return false;
    }
    impl_->cv.wait_for(lock, milliseconds(100));
  }
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
