// Why a started bot did not become ready, in words that say what to do: the limit it ran
// into and the flag that sets it, the --listen address the referee passed, and the known
// newcomer mistakes, found from the bot's output, its open sockets and its files.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace allfives::referee {

// What was seen of a started bot that did not become ready.
struct StartupFailure {
  std::string why;  // what the wait saw last ("not serving before the start-up timeout: ...")
  std::chrono::milliseconds timeout{0};  // the start-up timeout it had
  bool timed_out = false;                // the timeout passed while the process still ran
  std::string exit;                      // how it ended, when it did ("exited with code 2")
  std::vector<std::string> command;      // as started, without the --listen the referee added
  std::string listen;                    // the address passed: "unix:/run/bot/seat0.sock"
  bool sandboxed = false;
  std::vector<std::string> visible_dirs;  // the folders its sandbox shows it (read-only)
  // The socket at `listen` existed (the bot listened there; its health check did not answer).
  bool socket_found = false;
  // Where its processes listen instead, while it still ran (listening_addresses()).
  std::vector<std::string> listening;
  std::string output;  // what it printed (capped)
};

// The message: `why` and how it ended, then a sentence per known cause with its fix, then its
// output. Causes: the start-up timeout (its value, --startup-timeout-ms, startup_timeout_ms);
// listening somewhere else than the --listen address (0.0.0.0:50051, its own Unix socket); a
// socket without a health service answering SERVING; a program that refuses --listen; a
// Python module that is missing because the sandbox does not show the virtual environment the
// interpreter belongs to (--read-only VENV, read_only_dirs).
std::string describe_startup_failure(const StartupFailure& f);

// The referee's own command line (main() sets it), so that a fix can be given as the whole
// corrected command.
void set_invocation(std::vector<std::string> argv);
const std::vector<std::string>& invocation();
// A word as a POSIX shell reads it back ('my bots/bot' quoted, plain words as they are).
std::string shell_word(const std::string& word);

// Where the process `pid` and its descendants listen, as their network namespace sees it:
// "0.0.0.0:50051 (TCP)", "[::]:8080 (TCP)", "unix:/tmp/bot.sock". Read from /proc (the
// sockets among their open files); empty where /proc does not let the referee look.
std::vector<std::string> listening_addresses(int pid);

// The virtual environment (the folder holding pyvenv.cfg) that the interpreter of `command`
// belongs to: its program if that is a Python interpreter, else the interpreter named on the
// program's #! line (through /usr/bin/env too). Python finds pyvenv.cfg next to the
// interpreter or one folder up, and so does this.
std::optional<std::string> virtual_environment_of(const std::vector<std::string>& command);

}  // namespace allfives::referee
