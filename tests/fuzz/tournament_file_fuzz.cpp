// libFuzzer target for the tournament-file reader: any bytes given to load_tournament must give
// a verdict (a checked definition, or an error naming the file), never a crash, a hang, a
// sanitizer report or an allocation beyond the stated limits. On every accepted file it also
// checks what the limits promise: the schedule is at most kMaxScheduleMatches matches and
// schedule_size() says exactly how many make_schedule() builds (built only when small), every
// bot name and match id is a safe file name, and every number is within its range.
// Built only with clang (-DALLFIVES_FUZZ=ON); run it with tests/fuzz/run.sh.
#include <google/protobuf/stubs/logging.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "log/match_log.h"
#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace {

using namespace allfives;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string& input_path() {
  static std::string path = [] {
    char name[] = "/tmp/allfives-tournament-fuzz-XXXXXX";
    const int fd = ::mkstemp(name);
    check(fd >= 0);
    ::close(fd);
    return std::string(name);
  }();
  // Removed when the fuzzer exits (its time limit ends it through exit()).
  static const bool removed_at_exit = std::atexit([] { ::unlink(input_path().c_str()); }) == 0;
  (void)removed_at_exit;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);  // the text parser's own complaints are noise here
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = input_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  referee::TournamentDef def;
  std::string error;
  // Programs are not looked up: the reader's own checks are what is fuzzed, not the PATH.
  const bool ok = referee::load_tournament(path, def, &error, {},
                                           referee::LoadOptions{.check_programs = false});
  if (!ok) {
    check(!error.empty() && error.rfind(path, 0) == 0);  // every error names the file
    return 0;
  }
  const v1::Tournament& p = def.proto;
  check(p.matches_per_pairing() >= 1 && p.matches_per_pairing() <= referee::kMaxMatchesPerPairing);
  check(p.move_time_ms() >= 1 && p.move_time_ms() <= referee::kMaxMoveTimeMs);
  check(p.time_bank_ms() <= referee::kMaxTimeBankMs);
  check(def.concurrency >= 1);
  for (const referee::BotSpec& b : def.bots)
    check(
        referee::check_safe_name(b.display_name, "bot name", referee::kMaxBotNameLength, nullptr));
  const uint64_t n = referee::schedule_size(def);
  check(n <= referee::kMaxScheduleMatches);
  if (n <= 5000) {
    const auto schedule = referee::make_schedule(def);
    check(schedule.size() == n);
    for (const v1::ScheduledMatch& m : schedule)
      check(
          referee::check_safe_name(m.match_id(), "match id", referee::kMaxMatchIdLength, nullptr));
  }
  return 0;
}
