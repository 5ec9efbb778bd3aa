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

namespace allfives::referee {

// What worker number `worker` (0, 1, ...) runs: read one job per line from `jobs_fd` until EOF
// (or until `stop` is raised), write one result line per finished job to `results_fd` (nothing
// for an abandoned one), and return the worker's exit code.
using WorkerMain = std::function<int(int worker, int jobs_fd, int results_fd)>;

struct WorkerOutcome {
  bool ok = true;     // every worker ended normally (or was stopped)
  std::string error;  // why not
};

// Forks `workers` processes running `work` and hands out jobs 0 .. job_count - 1 (`job(i)` is
// its line, without '\n', made when it is handed out; nothing: job i is skipped) one at a
// time to whichever worker is free. Calls `on_result(line)` in this process, in the order the
// results arrive, and stops handing out jobs once it returns false or `stop` is raised (then
// the workers are sent SIGTERM). Waits for every worker to exit before returning.
WorkerOutcome run_workers(int workers, size_t job_count,
                          const std::function<std::optional<std::string>(size_t)>& job,
                          const WorkerMain& work,
                          const std::function<bool(const std::string&)>& on_result,
                          const std::atomic<bool>& stop);

}  // namespace allfives::referee
