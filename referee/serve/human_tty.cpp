#include "serve/human_tty.h"

#include <poll.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "replay/frames.h"
#include "replay/replay.h"
#include "replay/terminal_view.h"

namespace allfives::referee::serve {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds left_until(Clock::time_point t, Clock::time_point now) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(t - now));
}

// The line of one number typed, or -1.
int number_in(const std::string& line) {
  int k = 0;
  bool digits = false;
  for (char c : line) {
    if (c == ' ' || c == '\r' || c == '\t') continue;
    if (c < '0' || c > '9' || k > 1000) return -1;
    k = k * 10 + (c - '0');
    digits = true;
  }
  return digits ? k : -1;
}

// The match in one line and the seats, as the person sees them: never the seed, which would
// tell every deal (the replay's heading shows it).
std::string heading(const Replay& r, int seat) {
  std::string out = "Match " + r.header.match_id() + " · " + format_label(r.config.format) +
                    " · target " + std::to_string(r.config.target) + "\n";
  for (int s = 0; s < num_players(r.config.format); ++s)
    out += "  " + seat_label(r, s) + (s == seat ? "  (you)" : "") + "\n";
  return out;
}

}  // namespace

std::string plays_words(const View& view) {
  std::string out;
  const PlayList& legal = view.legal_plays();
  for (int i = 0; i < legal.size(); ++i) {
    const Play p = legal[i];
    out += (i ? "   [" : "[") + std::to_string(i + 1) + "] " + tile_words(p.tile);
    if (view.line().empty())
      out += " to open";
    else
      out += p.end == End::kLeft ? " on the left" : " on the right";
    const int points = points_after(view.line(), p);
    if (points > 0) out += ", +" + std::to_string(points);
  }
  return out;
}

std::string clock_words(std::chrono::milliseconds move_left, std::chrono::milliseconds bank_left) {
  const long long move_s = (move_left.count() + 999) / 1000;
  const long long bank_s = (bank_left.count() + 999) / 1000;
  std::string bank = bank_s >= 60 ? std::to_string(bank_s / 60) + ":" +
                                        (bank_s % 60 < 10 ? "0" : "") + std::to_string(bank_s % 60)
                                  : std::to_string(bank_s) + " s";
  return "move " + std::to_string(move_s) + " s · bank " + bank;
}

std::string TerminalSeat::draw(const View& view, bool color) {
  // The table as `referee replay --seat` draws it, from the log as it stands. The referee
  // appends the records of what led here while the request travels, so wait briefly for them.
  Replay replay;
  std::vector<Frame> frames;
  const auto give_up = Clock::now() + std::chrono::milliseconds(1000);
  while (true) {
    LogError error;
    replay = Replay{};
    load_replay_file(log_path_, replay, error);
    frames = build_frames(replay, view.seat());
    const bool current = !replay.steps.empty() &&
                         replay.steps.back().table.seat_to_move == view.seat() &&
                         replay.steps.back().table.line.size() == view.line().size() &&
                         replay.steps.back().table.hand_index == view.hand_index();
    if (current || Clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  TerminalOptions topt;
  topt.viewer = view.seat();
  topt.to_move = view.seat();
  topt.color = color;
  std::string out;
  if (shown_ == 0 && !frames.empty()) out += heading(replay, view.seat());
  // What happened since the last decision, a line each, then the table now.
  for (int i = shown_; i + 1 < static_cast<int>(frames.size()); ++i)
    out += "  " + frames[static_cast<size_t>(i)].text.words + "\n";
  if (!frames.empty()) out += render_frame(replay, frames.back(), topt);
  shown_ = static_cast<int>(frames.size());
  return out;
}

std::optional<Play> TerminalSeat::decide(const View& view, Clock::time_point move_end,
                                         Clock::time_point answer_by,
                                         const std::function<bool()>& stopped) {
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  std::string out = draw(view, tty && !std::getenv("NO_COLOR"));
  const int n = view.legal_plays().size();
  out += "Your plays:  " + plays_words(view) + "\n";
  std::string ask = "Your turn (seat " + std::to_string(view.seat()) + "): type 1";
  if (n > 1) {
    ask += '-';
    ask += std::to_string(n);
  }
  ask += " and Enter";
  if (!tty)  // a file or a pipe gets the prompt once
    out += ask + " · " +
           clock_words(left_until(move_end, Clock::now()),
                       left_until(answer_by, std::max(Clock::now(), move_end))) +
           "\n";
  std::cout << out << std::flush;
  while (true) {
    const auto now = Clock::now();
    if (stopped()) return std::nullopt;
    if (now >= answer_by) {
      std::cout << (tty ? "\r\x1b[K" : "") << "Your time ran out.\n" << std::flush;
      return std::nullopt;
    }
    size_t nl;
    while ((nl = typed_.find('\n')) != std::string::npos) {
      const std::string line = typed_.substr(0, nl);
      typed_.erase(0, nl + 1);
      const int k = number_in(line);
      if (k >= 1 && k <= n) {
        if (tty) std::cout << "\r\x1b[K" << std::flush;
        return view.legal_plays()[k - 1];
      }
      std::cout << (tty ? "\r\x1b[K" : "") << "'" << line
                << "' is not a play: type a number from 1 to " << n << ".\n"
                << std::flush;
    }
    if (tty)  // the prompt, redrawn in place with the time left
      std::cout << "\r\x1b[K" << ask << " · "
                << clock_words(left_until(move_end, now),
                               left_until(answer_by, std::max(now, move_end)))
                << ": " << std::flush;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const auto wait = std::min<long long>(left_until(answer_by, now).count(), 1000);
    if (::poll(&p, 1, static_cast<int>(std::max<long long>(wait, 1))) <= 0) continue;
    char buf[256];
    const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
    if (got <= 0) {  // Ctrl-D or a closed pipe: nobody can answer any more
      std::cout << (tty ? "\r\x1b[K" : "") << "End of input: you leave the table.\n" << std::flush;
      throw SeatLeft();
    }
    typed_.append(buf, static_cast<size_t>(got));
  }
}

void TerminalSeat::show_end(const HumanTable& t) {
  std::cout << "\n" << t.headline << "\n" << t.detail << "\n" << std::flush;
}

}  // namespace allfives::referee::serve
