#include "cli/command_line_errors.h"

#include <CLI/CLI.hpp>

#include "text/did_you_mean.h"

namespace allfives::referee {
namespace {

// The subcommand whose arguments were being parsed: the deepest one met.
const CLI::App* innermost(const CLI::App* app) {
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  return app;
}

// "referee match": the program (whatever its path) and the commands down to `app`.
std::string command_path(const CLI::App* app) {
  std::string out;
  for (; app->get_parent(); app = app->get_parent()) out = " " + app->get_name() + out;
  return "referee" + out;
}

// Unknown flags and stray words left over in `cmd`, each with the nearest flag.
std::string explain_extras(const CLI::App* cmd) {
  const std::string who = command_path(cmd);
  std::string out;
  const std::vector<std::string> flags = flag_names(*cmd);
  std::vector<std::string> strays;
  bool after_flag = false;  // a word after an unknown flag is taken for its value
  for (const std::string& word : cmd->remaining()) {
    const bool flag = word.size() >= 2 && word[0] == '-';
    if (flag) out += who + ": " + unknown_flag(word, flags) + "\n";
    if (!flag && !after_flag) strays.push_back("'" + word + "'");
    after_flag = flag && word.find('=') == std::string::npos;
  }
  if (!strays.empty())
    out += who + ": " + (strays.size() == 1 ? "unexpected argument " : "unexpected arguments ") +
           name_list(strays, "and") + "\n";
  return out + "Run `" + who + " --help` for every flag.\n";
}

std::string explain_missing_command(const CLI::App* app) {
  std::vector<std::string> commands;
  for (const CLI::App* c : app->get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(c->get_name());
  const std::vector<std::string> words = app->remaining();
  const std::string who = command_path(app);
  std::string out = who + ": ";
  if (words.empty()) {
    out += "give a command";
  } else if (words[0].starts_with('-')) {
    out += unknown_flag(words[0], flag_names(*app)) + " (flags of a command come after it)";
  } else {
    out += "unknown command '" + words[0] + "'";
    if (const std::optional<std::string> near = nearest_name(words[0], commands))
      out += "; did you mean '" + *near + "'?";
  }
  return out + "\nCommands: " + name_list(commands) + " (`" + who + " COMMAND --help` for each).\n";
}

}  // namespace

std::string unknown_flag(const std::string& word, const std::vector<std::string>& flags) {
  const std::string flag = word.substr(0, word.find('='));
  std::string out = "unknown flag " + flag;
  if (const std::optional<std::string> near = nearest_name(flag, flags))
    out += "; did you mean " + *near + "?";
  return out;
}

std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string explain_command_line_error(const CLI::App* app, const CLI::Error& e) {
  const CLI::App* cmd = innermost(app);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !cmd->remaining().empty())
    return explain_extras(cmd);
  // A `--` ends a command that takes a command line (check-bot): what followed is left over.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && cmd->get_prefix_command())
    return command_path(cmd) +
           ": the bot's command line follows the flags directly, with no `--` "
           "before it\n";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !app->remaining().empty())
    return explain_extras(app);
  // A command that needs a subcommand (`referee`, `referee ladder`) was given none it knows.
  if (dynamic_cast<const CLI::RequiredError*>(&e) && cmd->get_require_subcommand_min() > 0)
    return explain_missing_command(cmd);
  return CLI::FailureMessage::simple(app, e);
}

}  // namespace allfives::referee
