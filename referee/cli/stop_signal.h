// Ctrl-C and SIGTERM raise one flag that every long wait of the referee watches, so the
// referee stops cleanly: bots are told, shut down and reaped, files are closed.
#pragma once

#include <atomic>

namespace allfives::referee {

// Installs the handlers (once) and returns the flag they raise.
const std::atomic<bool>& install_stop_signals();
// The signal that raised the flag (SIGINT or SIGTERM), 0 if none.
int stop_signal();

}  // namespace allfives::referee
