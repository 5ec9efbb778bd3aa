// `referee standings DIR...`: the standings of a tournament from the index of one or more of
// its output folders.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback prints the standings and sets the exit code
// (0 done, 1 an index could not be read or the folders hold different tournaments).
void add_standings_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
