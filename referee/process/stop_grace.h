// How long a bot has between SIGTERM and SIGKILL when the referee stops it
// (BotProcess::stop), by why it is stopped.
#pragma once

#include <chrono>

namespace allfives::referee {

// Its work is done (the match, or the tournament, is over): time to exit cleanly.
inline constexpr std::chrono::milliseconds kStopGrace{2000};
// Stopped while the run goes on (replaced after a fault, evicted from the pool, dropped with
// its endpoint): others are waiting for the machine.
inline constexpr std::chrono::milliseconds kPromptStopGrace{1000};
// It never became ready: it has played nothing it could want to finish.
inline constexpr std::chrono::milliseconds kFailedStartGrace{200};
// A bot under `referee check-bot`, restarted between its checks or stopped after them (and the
// check's built-in opponents): nothing it plays there is kept, and how it exits on SIGTERM is
// a check of its own, which gives it kStopGrace.
inline constexpr std::chrono::milliseconds kCheckStopGrace{200};

}  // namespace allfives::referee
