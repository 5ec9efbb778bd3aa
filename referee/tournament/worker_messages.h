// What a tournament's worker process sends the parent (worker_messages.proto): a record per
// finished match, and its report at the end. Both sides are the referee, but what arrives is
// still read with care: a record that does not parse is an error that says so, never a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "tournament/worker_messages.pb.h"

namespace allfives::referee {

// The records a worker writes (write_record, worker_processes.h).
std::string result_record(const v1::IndexEntry& e);
std::string report_record(const worker::WorkerReport& report);

// Parses one record: false, with why, when it is not a WorkerMessage holding a result or a
// report.
bool parse_worker_message(std::string_view record, worker::WorkerMessage* m, std::string* error);

// The workers' reports added up, for the lines printed at a run's end.
struct WorkerTotals {
  long peak_rss_kib = 0;      // the largest a worker reported (0: none did)
  std::vector<int> replaced;  // per bot
  int started = 0, started_for_new_deals = 0;

  explicit WorkerTotals(size_t bots) : replaced(bots, 0) {}
  // Adds one worker's report: false, with why, when it names more bots than the tournament has.
  bool add(const worker::WorkerReport& report, std::string* error);
};

}  // namespace allfives::referee
