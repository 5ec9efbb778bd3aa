// `referee serve DIR...`: the tournament pages, replays and live matches in a browser.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback serves until Ctrl-C and sets the exit code.
void add_serve_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
