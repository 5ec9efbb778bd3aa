#include "e2e/e2e_util.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "allfives/core/state.h"
#include "allfives/wire/convert.h"
#include "log/match_log.h"
#include "process/bot_process.h"

namespace allfives::e2e {

RunResult run(const std::vector<std::string>& argv, std::chrono::milliseconds deadline) {
  referee::LaunchSpec spec;
  spec.argv = argv;
  spec.stderr_cap_bytes = 1 << 20;
  std::string error;
  auto p = referee::BotProcess::start(spec, &error);
  RunResult r;
  if (!p) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << error;
    return r;
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (p->running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool exited = !p->running();
  p->stop(std::chrono::milliseconds(500));
  r.output = p->take_stderr();
  if (!exited) {
    ADD_FAILURE() << argv[0] << " did not finish within " << deadline.count() << " ms; output:\n"
                  << r.output;
    return r;
  }
  const auto st = p->exit_status();
  r.exit_code = st && !st->signaled ? st->code : 128 + (st ? st->signal : 0);
  return r;
}

std::string temp_dir(const std::string& name) {
  const auto base = std::filesystem::temp_directory_path() /
                    ("allfives-e2e-" + std::to_string(::getpid()));
  const auto dir = base / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  static const struct Cleanup {
    std::filesystem::path base;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(base, ec);
    }
  } cleanup{base};
  return dir.string();
}

std::vector<v1::LogRecord> read_log(const std::string& path) {
  std::vector<v1::LogRecord> out;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no log at " << path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    v1::LogRecord r;
    std::string error;
    EXPECT_TRUE(referee::from_json_line(line, &r, &error))
        << path << ":" << number << ": " << error << "\n" << line;
    EXPECT_NE(r.kind_case(), v1::LogRecord::KIND_NOT_SET) << path << ":" << number;
    out.push_back(r);
  }
  return out;
}

const v1::LogRecord& only(const std::vector<v1::LogRecord>& log, v1::LogRecord::KindCase kind) {
  const v1::LogRecord* found = nullptr;
  int count = 0;
  for (const auto& r : log)
    if (r.kind_case() == kind) {
      found = &r;
      ++count;
    }
  EXPECT_EQ(count, 1) << "records of kind " << kind;
  static const v1::LogRecord empty;
  return found ? *found : empty;
}

namespace {

Tile tile_of(const v1::Tile& t) {
  Tile out;
  std::string error;
  EXPECT_TRUE(wire::from_proto(t, out, &error)) << error;
  return out;
}

TileSet set_of(const google::protobuf::RepeatedPtrField<v1::Tile>& tiles) {
  TileSet s;
  for (const auto& t : tiles) s.add(tile_of(t));
  return s;
}

}  // namespace

// The check walks the log and the core side by side: each play record is applied to a state
// built from the header's seed, and the events the core reports must be the records that
// follow, field by field.
void expect_log_follows_rules(const std::vector<v1::LogRecord>& log) {
  ASSERT_FALSE(log.empty());
  ASSERT_TRUE(log[0].has_header()) << "the first record must be the header";
  const v1::LogHeader& h = log[0].header();
  Config config;
  std::string error;
  ASSERT_TRUE(wire::from_proto(h.format(), config.format, &error)) << error;
  config.target = static_cast<int>(h.target_score());
  config.max_hands = static_cast<int>(h.max_hands());
  EXPECT_EQ(h.num_players(), static_cast<uint32_t>(num_players(config.format)));
  EXPECT_EQ(h.bots_size(), num_players(config.format));

  size_t i = 1;
  // Matches the core's events against the records starting at i.
  auto check_events = [&](const EventList& events) {
    for (const Event& e : events) {
      if (e.kind == EventKind::kMatchEnd) continue;
      ASSERT_LT(i, log.size()) << "the log ends before a " << to_string(e.kind) << " event";
      const v1::LogRecord& r = log[i++];
      switch (e.kind) {
        case EventKind::kHandStart: {
          ASSERT_TRUE(r.has_hand_start()) << "record " << i << ": expected hand_start";
          const auto& hs = r.hand_start();
          EXPECT_EQ(hs.hand_index(), static_cast<uint32_t>(e.hand_index));
          EXPECT_EQ(hs.opener_seat(), static_cast<uint32_t>(e.seat));
          for (int s = 0; s < num_players(config.format); ++s)
            EXPECT_EQ(set_of(hs.hands(s).tiles()), e.deal.hands[s]) << "hand " << e.hand_index;
          ASSERT_EQ(hs.boneyard_size(), e.deal.boneyard_size);
          for (int b = 0; b < e.deal.boneyard_size; ++b)
            EXPECT_EQ(tile_of(hs.boneyard(b)), e.deal.boneyard[b]);
          break;
        }
        case EventKind::kPlay: {
          ASSERT_TRUE(r.has_play()) << "record " << i << ": expected play";
          const auto& p = r.play();
          EXPECT_EQ(p.seat(), static_cast<uint32_t>(e.seat));
          EXPECT_EQ(tile_of(p.play().tile()), e.play.tile);
          EXPECT_EQ(p.count(), static_cast<uint32_t>(e.count)) << "record " << i;
          EXPECT_EQ(p.points(), static_cast<uint32_t>(e.points)) << "record " << i;
          EXPECT_EQ(p.side(), static_cast<uint32_t>(e.side));
          break;
        }
        case EventKind::kDraw:
          ASSERT_TRUE(r.has_draw()) << "record " << i << ": expected draw";
          EXPECT_EQ(r.draw().seat(), static_cast<uint32_t>(e.seat));
          EXPECT_EQ(set_of(r.draw().tiles()), e.tiles);
          break;
        case EventKind::kPass:
          ASSERT_TRUE(r.has_pass()) << "record " << i << ": expected pass";
          EXPECT_EQ(r.pass().seat(), static_cast<uint32_t>(e.seat));
          break;
        case EventKind::kHandEnd:
          ASSERT_TRUE(r.has_hand_end()) << "record " << i << ": expected hand_end";
          EXPECT_EQ(r.hand_end().winner_side(), e.side);
          EXPECT_EQ(r.hand_end().points(), static_cast<uint32_t>(e.points));
          for (int s = 0; s < num_players(config.format); ++s)
            EXPECT_EQ(set_of(r.hand_end().hands(s).tiles()), e.hands[s]);
          break;
        case EventKind::kMatchEnd: break;
      }
    }
  };

  EventList events;
  State state = State::new_match(config, h.seed(), &events);
  // A match that ended before its first deal (a bot failed to start or to shake hands) has
  // no hands to check.
  const bool dealt = std::any_of(log.begin(), log.end(), [](const auto& r) { return r.has_hand_start(); });
  if (dealt) check_events(events);
  while (i < log.size() && log[i].has_play()) {
    const auto& p = log[i].play();
    ASSERT_EQ(p.seat(), static_cast<uint32_t>(state.seat_to_move())) << "record " << i + 1;
    Play play{tile_of(p.play().tile()), p.play().end() == v1::END_RIGHT ? End::kRight : End::kLeft};
    events.clear();
    ASSERT_EQ(state.apply(play, &events), PlayError::kNone) << "record " << i + 1;
    check_events(events);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The rest: an optional fault, the match end, bot output.
  const v1::LogMatchEnd& end = only(log, v1::LogRecord::kMatchEnd).match_end();
  for (int side = 0; side < num_sides(config.format); ++side)
    EXPECT_EQ(end.scores(side), static_cast<uint32_t>(state.score(side))) << "side " << side;
  if (end.reason() == v1::MATCH_END_REASON_TARGET || end.reason() == v1::MATCH_END_REASON_HAND_LIMIT) {
    EXPECT_TRUE(state.is_terminal());
    EXPECT_EQ(end.reason(), wire::to_proto(state.outcome().reason));
    EXPECT_EQ(end.winner_side(), state.outcome().winner_side);
  } else {
    EXPECT_FALSE(state.is_terminal());
  }
}

bool group_alive(int pgid) { return ::kill(-pgid, 0) == 0 || errno != ESRCH; }

bool wait_groups_gone(const std::vector<int>& pgids, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    bool any = false;
    for (int g : pgids) any |= group_alive(g);
    if (!any) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace allfives::e2e
