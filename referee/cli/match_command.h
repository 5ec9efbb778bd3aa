// `referee match`: one match between bots given on the command line.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback runs the match and sets the exit code.
void add_match_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
