// Progress of a long run on stderr: one refreshing line on a terminal, plain periodic lines
// otherwise (CI logs, files), so a user always sees how far along and how fast it is.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "allfives/v1/tournament.pb.h"

namespace allfives::referee {

class Progress {
 public:
  // `total` matches in this run, of which `already` were finished before (resume).
  Progress(int total, int already, std::FILE* out = stderr);
  // Counts a finished match (thread-safe) and redraws or prints as due.
  void add(const v1::IndexEntry& e);
  // Counts an earlier match toward the leader board without counting it as done now.
  void add_earlier(const v1::IndexEntry& e);
  // The final line (ends a refreshing line with a newline).
  void finish();
  // Text appended to every line from now on, e.g. the SPRT's LLR and bounds (thread-safe).
  void set_status(std::string status);
  // The run may end before its total (an SPRT): `total` is then shown as a maximum, and the
  // ETA counts the matches it is expected to play from now on (thread-safe).
  void set_expected_left(int64_t matches);

 private:
  void tally(const v1::IndexEntry& e);
  std::string line(bool final);

  std::mutex mutex_;
  std::FILE* out_;
  bool tty_;
  int total_, already_, done_ = 0, faults_ = 0;
  std::map<std::string, double> points_;  // match points: 1 per win, 1/2 per draw
  std::map<std::string, int> played_;
  std::string status_;
  int64_t expected_left_ = -1;  // -1: the rest of the total
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace allfives::referee
