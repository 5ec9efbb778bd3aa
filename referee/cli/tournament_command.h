// `referee tournament FILE`: a round-robin tournament from a definition file.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

void add_tournament_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
