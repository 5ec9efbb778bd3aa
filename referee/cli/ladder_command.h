// `referee ladder ...`: a competition that runs for weeks (docs/LADDER.md): init, add-user,
// submit, run, and the organiser's views (list, standings, user, report, history, retire).
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the command and its subcommands to `app`; each sets the exit code (0 done, 1 refused or
// failed, having said why, 2 bad arguments).
void add_ladder_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
