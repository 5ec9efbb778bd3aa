// The person's seat in the terminal (`referee match human-tty ...`): the table as
// `referee replay --seat` draws it, from the match's own log as this seat saw it (under a
// heading of its own: never the seed, which would tell every deal), with ▶ at
// the seat whose turn it is; the legal plays named in full ("[2] 6-4 on the right, +10"); a
// prompt with the move time and the bank, redrawn in place each second on a terminal (printed
// once otherwise); a number typed and Enter. End of input (Ctrl-D) leaves the table at once.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "allfives/core/state.h"
#include "serve/human_table.h"

namespace allfives::referee::serve {

// Thrown when the person's input ends: the seat leaves the match (a disconnect, at once).
struct SeatLeft : std::runtime_error {
  SeatLeft() : std::runtime_error("end of input: the person at this seat left the table") {}
};

class TerminalSeat {
 public:
  void set_log(std::string path) { log_path_ = std::move(path); }
  void new_match() { shown_ = 0; }
  // Shows the table and asks for a play until `answer_by` (the move time runs until
  // `move_end`, then the bank). nullopt if the time ran out or `stopped()` became true.
  std::optional<Play> decide(const View& view, std::chrono::steady_clock::time_point move_end,
                             std::chrono::steady_clock::time_point answer_by,
                             const std::function<bool()>& stopped);
  // The match's end in words.
  void show_end(const HumanTable& table);

 private:
  // The heading (first time), what happened since the last decision, and the table now.
  std::string draw(const View& view, bool color);

  std::string log_path_;
  int shown_ = 0;      // the log's frames already shown
  std::string typed_;  // typed ahead: lines not yet used
};

// "[1] 6-4 on the left, +10   [2] 5-5 to open": the legal plays, numbered from 1.
std::string plays_words(const View& view);

// "move 42 s · bank 9:35": the time left, the move's first.
std::string clock_words(std::chrono::milliseconds move_left, std::chrono::milliseconds bank_left);

}  // namespace allfives::referee::serve
