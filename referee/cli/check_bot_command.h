// `referee check-bot COMMAND [ARGS...]`: starts a bot exactly as a match would and reports,
// check by check, whether it does what the referee expects, with the fix for each failure. The
// work is check/bot_check.h; this is its command line.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback sets `exit_code` (0 conforms, 1 does not, 2 bad
// arguments, 3 the check could not run).
void add_check_bot_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
