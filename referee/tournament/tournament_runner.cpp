#include "tournament/tournament_runner.h"

#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "allfives/wire/convert.h"
#include "process/private_dir.h"
#include "tournament/bot_pool.h"
#include "tournament/index_file.h"
#include "tournament/progress.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

v1::IndexEntry index_entry(const TournamentRun& run, const v1::ScheduledMatch& m,
                           const MatchResult& r, const std::string& log_file) {
  v1::IndexEntry e;
  *e.mutable_match() = m;
  e.set_reason(r.reason);
  e.set_winner_side(r.winner_side);
  for (int s : r.scores) e.add_scores(static_cast<uint32_t>(s));
  for (int p : r.placements) e.add_placements(static_cast<uint32_t>(p));
  e.set_fault_seat(r.fault ? r.fault->seat : -1);
  if (r.fault) {
    e.set_fault_kind(r.fault->kind);
    e.set_fault_reason(r.fault->reason);
  }
  e.set_log_file(log_file);
  e.set_duration_ms(static_cast<uint64_t>(r.duration.count()));
  e.set_hands_played(static_cast<uint32_t>(r.hands_played));
  e.set_tournament_hash(run.def.hash);
  e.set_format(wire::to_proto(run.def.config.format));
  e.set_tournament_name(run.def.proto.name());
  return e;
}

// The referee's own peak resident memory (bots not included), from /proc.
long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(4096, '\n');
  }
  return -1;
}

}  // namespace

int run_tournament(const TournamentRun& run, const std::atomic<bool>& stop) {
  const TournamentDef& def = run.def;
  const fs::path out(run.out_dir);
  std::error_code ec;
  fs::create_directories(out / "matches", ec);
  if (ec) {
    std::cerr << "referee tournament: cannot create " << (out / "matches").string() << ": "
              << ec.message() << "\n";
    return 1;
  }
  const std::string index_path = (out / "index.jsonl").string();

  // What is already finished here: nothing for a fresh run; the index for a resume, with a
  // torn last line (a kill mid-write) dropped.
  std::vector<v1::IndexEntry> earlier;
  std::vector<std::string> notes;
  std::string error;
  if (!read_index(index_path, run.resume, earlier, notes, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  for (const std::string& note : notes) std::cerr << note << "\n";
  if (!earlier.empty() && !run.resume) {
    std::cerr << "referee tournament: " << run.out_dir << " already holds " << earlier.size()
              << " finished matches; add --resume to continue that tournament, or choose another "
                 "--out\n";
    return 1;
  }
  for (const v1::IndexEntry& e : earlier) {
    if (e.tournament_hash() != def.hash) {
      std::cerr << "referee tournament: " << index_path << " holds matches of another tournament "
                << "definition (hash " << e.tournament_hash() << ", this file " << def.hash
                << "); resume needs the same file\n";
      return 1;
    }
  }
  {
    std::string text;
    google::protobuf::TextFormat::PrintToString(def.proto, &text);
    std::ofstream(out / "tournament.txtpb") << "# As run; hash " << def.hash << "\n" << text;
  }

  const std::vector<v1::ScheduledMatch> mine =
      shard_of(make_schedule(def), run.shard_index, run.shard_count);
  std::set<std::string> finished;
  for (const v1::IndexEntry& e : earlier) finished.insert(e.match().match_id());
  std::vector<const v1::ScheduledMatch*> todo;
  for (const v1::ScheduledMatch& m : mine)
    if (!finished.count(m.match_id())) todo.push_back(&m);
  finished = {};

  std::map<std::string, int> bot_index;
  for (size_t i = 0; i < def.bots.size(); ++i)
    bot_index[def.bots[i].display_name] = static_cast<int>(i);

  std::cerr << "tournament " << def.proto.name() << ": " << mine.size() << " matches"
            << (run.shard_count > 1 ? " in shard " + std::to_string(run.shard_index) + "/" +
                                          std::to_string(run.shard_count)
                                    : "")
            << ", " << todo.size() << " to play, " << run.concurrency << " at once -> "
            << run.out_dir << "\n";

  auto socket_dir = PrivateDir::create(&error);
  if (!socket_dir) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  BotPool pool(def.bots, socket_dir->path(), def.startup_timeout);
  Progress progress(static_cast<int>(mine.size()), static_cast<int>(mine.size() - todo.size()));
  // Standings grow with the bots, not the matches: each result is folded in as it arrives.
  StandingsAccumulator standings;
  for (const v1::IndexEntry& e : earlier) {
    progress.add_earlier(e);
    standings.add(e);
  }
  earlier = {};

  std::atomic<size_t> next{0};
  std::mutex index_mutex;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (;;) {
      if (stop.load() || failed.load()) return;
      const size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      const v1::ScheduledMatch& m = *todo[i];

      MatchSpec spec;
      spec.match_id = m.match_id();
      spec.config = def.config;
      spec.seed = m.seed();
      spec.time = def.time;
      std::vector<std::unique_ptr<BotEndpoint>> held(static_cast<size_t>(m.seat_bots_size()));
      for (int seat = 0; seat < m.seat_bots_size(); ++seat) {
        const int b = bot_index.at(m.seat_bots(seat));
        std::string why;
        held[static_cast<size_t>(seat)] = pool.acquire(b, &why);
        spec.seats.push_back(SeatSpec{&def.bots[static_cast<size_t>(b)],
                                      held[static_cast<size_t>(seat)].get(), why});
      }
      const std::string log_file = "matches/" + m.match_id() + ".jsonl";
      std::string why;
      auto log = MatchLog::create((out / log_file).string(), &why);
      if (!log) {
        std::cerr << "referee tournament: " << why << "\n";
        failed = true;
        return;
      }
      const MatchResult r = play_match(spec, *log, &stop);
      for (int seat = 0; seat < m.seat_bots_size(); ++seat) {
        const bool faulty = r.fault && r.fault->seat == seat;
        pool.release(bot_index.at(m.seat_bots(seat)), std::move(held[static_cast<size_t>(seat)]),
                     !faulty && r.reason != v1::MATCH_END_REASON_ABORTED);
      }
      // An aborted match is not a result: a resume plays it again from scratch.
      if (r.reason == v1::MATCH_END_REASON_ABORTED) continue;
      const v1::IndexEntry e = index_entry(run, m, r, log_file);
      {
        std::lock_guard<std::mutex> lock(index_mutex);
        if (!append_index(index_path, e, &why)) {
          std::cerr << "referee tournament: " << why << "\n";
          failed = true;
          return;
        }
        standings.add(e);
      }
      if (!run.quiet) progress.add(e);
    }
  };
  std::vector<std::thread> workers;
  const int n = std::max(1, std::min<int>(run.concurrency, static_cast<int>(todo.size())));
  for (int w = 0; w < n; ++w) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
  pool.shutdown();
  if (!run.quiet) progress.finish();
  for (size_t b = 0; b < def.bots.size(); ++b)
    if (const int k = pool.replaced(static_cast<int>(b)); k > 0)
      std::cerr << "bot " << def.bots[b].display_name << ": " << k
                << " instance(s) replaced after a fault or crash\n";

  if (failed) return 1;
  if (stop.load()) {
    std::cerr << "stopped. Finished matches are kept in " << index_path
              << "; continue with: referee tournament " << def.path << " --resume --out "
              << run.out_dir << "\n";
    return 130;
  }

  const Standings table = standings.finish();
  std::cout << format_standings_table(table);
  if (!write_standings_files(run.out_dir, table, &error)) {
    std::cerr << "referee tournament: " << error << "\n";
    return 1;
  }
  std::cout << "Logs and standings: " << run.out_dir << "\n";
  std::cerr << "referee peak memory: " << peak_rss_kib() << " KiB\n";
  return 0;
}

}  // namespace allfives::referee
