// `referee tune FILE`: a bot's numeric parameters tuned by SPSA (docs/TUNING.md).
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the command to `app`; it sets the exit code (0 done, 1 refused or failed, having said
// why, 130/143 stopped: --resume continues).
void add_tune_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
