// `referee replay`: a logged match in the terminal (printed or stepped through) or as one
// self-contained HTML page.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback shows the replay and sets the exit code.
void add_replay_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
