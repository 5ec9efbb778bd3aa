// A tournament's concurrency as processes: N forked workers each play one match at a time,
// handed out one by one by the parent, which keeps the index, the standings and the progress.
//
// Why processes and not threads: gRPC 1.51 polls a process's sockets from one thread at a
// time and hands each event to the thread that waits for it, so two matches in one process
// queue behind each other's wake-ups. Measured on the demo tournament with 10x the matches
// (1200): one process playing 2 matches at a time took 16 s, two processes playing one each
// 9-11 s, one process playing one at a time 22-24 s.
//
// The workers are forked before the parent touches gRPC or starts any thread, so each has a
// gRPC of its own. A worker dies with the parent (PR_SET_PDEATHSIG, SIGKILL, as a killed
// referee leaves no process behind; each bot's own guardian then stops the bots), stops cleanly
// on SIGINT/SIGTERM (the parent forwards its stop), and never outlives a closed job pipe.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace allfives::referee {

// What worker number `worker` (0, 1, ...) runs: read one job per line from `jobs_fd` until EOF
// (or until `stop` is raised), write one record per finished job to `results_fd` (nothing for an
// abandoned one; write_record), and return the worker's exit code. It may write other records
// (its last report); the parent's on_result tells them apart.
using WorkerMain = std::function<int(int worker, int jobs_fd, int results_fd)>;

// The records of a worker's result pipe: each a 4-byte little-endian length, then that many
// bytes (a serialized protobuf message: tournament/worker_messages.proto).
inline constexpr size_t kMaxRecordBytes = size_t{16} << 20;
// Writes one record to `fd`; false if it could not be written whole.
bool write_record(int fd, std::string_view bytes);

// Splits what a pipe delivers, in pieces of any size, into records. A length over
// kMaxRecordBytes is an error (a corrupt stream): then error() says so and nothing more is read.
class RecordReader {
 public:
  void append(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole record into *record: true; false when it is not all there yet, or on error.
  bool next(std::string* record);
  const std::string& error() const { return error_; }
  // Bytes received of records not yet whole: at the end of the pipe, a record cut off.
  size_t pending() const { return buffer_.size() - start_; }

 private:
  std::string buffer_;
  size_t start_ = 0;  // where the next record begins in buffer_
  std::string error_;
};

struct WorkerOutcome {
  bool ok = true;     // every worker ended normally (or was stopped)
  std::string error;  // why not
};

// Which job a worker gets next. Job i belongs to worker i % workers, so each worker plays a
// fixed share of the jobs in their order. Jobs i and i + period (a multiple of workers) are of
// one lane: a tournament's lanes are the schedule's (pairing, rotation) streams, each worker
// keeps to a few of them deal after deal, and its bot instances are reused from deal to deal
// (tournament_runner.cpp). A worker that has played its share, while at least kMinStolen jobs
// are left to the others, takes the last job left, then the jobs before it in the same lane,
// back to front (the owners take theirs from the front), so that what it steals is one lane at
// a time: a few fresh instances, each reused, rather than fresh ones for every stolen job.
// Bookkeeping only, O(1) amortized per job; memory grows with the lanes stolen from.
class JobDealer {
 public:
  // A stolen job costs the thief what the owner has ready (a tournament's: bot instances that
  // have not played its deals); with fewer jobs left the owner plays them soon enough.
  static constexpr size_t kMinStolen = 2;

  // `period`: 0 for `workers`; else a multiple of it.
  JobDealer(int workers, size_t job_count, size_t period = 0);
  // The next job for `worker` (< workers), or nothing: it gets no more.
  std::optional<size_t> next(int worker);

 private:
  bool stolen(size_t j) const;
  bool dealt(size_t j) const { return j < own_[j % workers_] || stolen(j); }
  std::optional<size_t> steal(int worker);

  std::vector<size_t> own_;  // per worker, its next own job (its jobs below it are dealt)
  std::vector<std::optional<size_t>> lane_of_thief_;  // per worker, the lane it steals from
  std::unordered_map<size_t, size_t> stolen_from_;    // lane -> its jobs from there on are dealt
  size_t scan_;                                       // jobs from scan_ on are dealt
  size_t left_;                                       // jobs not dealt yet
  size_t workers_, period_;
};

// Forks `workers` processes running `work` and hands out jobs 0 .. job_count - 1 (`job(i)` is
// its line, without '\n', made when it is handed out; nothing: job i is skipped) one at a
// time to each worker that is free, as JobDealer deals them (`lane_period` its period). Calls
// `on_result(record)` in this process for each record, in the order they arrive; a record
// frees its worker for the next job. Stops handing out jobs once on_result returns false or
// `stop` is raised (then the workers are sent SIGTERM). A worker's stream that is not records
// (a length over the cap, a record cut off by its end) fails the run. Waits for every worker to
// exit before returning.
WorkerOutcome run_workers(int workers, size_t job_count, size_t lane_period,
                          const std::function<std::optional<std::string>(size_t)>& job,
                          const WorkerMain& work,
                          const std::function<bool(const std::string& record)>& on_result,
                          const std::atomic<bool>& stop);

}  // namespace allfives::referee
