// Writes the code blocks of Markdown files that are tagged for testing into files, so the
// build compiles them and the tests run them: a block that opens with "```cpp NAME" goes to
// OUT_DIR/NAME.cpp, one with "```cmake NAME" to OUT_DIR/NAME.cmake.
//   extract_examples MARKDOWN... OUT_DIR NAME...
// The arguments ending in ".md" are the pages, the first other one OUT_DIR. Fails (exit 1,
// saying where) if a cpp block has no name, a name is not among NAME..., is used twice (in one
// page or across pages), or a NAME has no block: every C++ example of the guide and its pages is
// built, none is lost. A file is rewritten only when its text changes, so an unchanged example
// is not rebuilt.
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

void write_if_changed(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  std::ofstream(path, std::ios::binary) << text;
}

using Blocks = std::map<std::string, std::string>;  // NAME.ext -> text

// Adds the tagged blocks of one page to `blocks`; false (having said why) on a mistake.
bool read_page(const std::string& markdown, const std::set<std::string>& wanted, Blocks& blocks) {
  std::ifstream in(markdown);
  if (!in) {
    std::cerr << "extract_examples: cannot read " << markdown << "\n";
    return false;
  }
  std::string line, name, text;
  bool inside = false, taken = false;
  int number = 0, opened_at = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!inside && line.rfind("```", 0) == 0 && line.size() > 3) {
      inside = true;
      opened_at = number;
      std::istringstream words(line.substr(3));
      std::string language;
      name.clear();
      words >> language >> name;
      taken = language == "cpp" || (language == "cmake" && !name.empty());
      if (language == "cpp" && name.empty()) {
        std::cerr << markdown << ":" << number << ": a ```cpp block needs a name for the test "
                  << "that builds it (```cpp NAME)\n";
        return false;
      }
      name += language == "cpp" ? ".cpp" : ".cmake";
      text.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      if (!taken) continue;
      const std::string stem = name.substr(0, name.rfind('.'));
      if (!wanted.count(stem)) {
        std::cerr << markdown << ":" << opened_at << ": the example '" << stem
                  << "' is not among the names the build expects (tests/sdk_readme)\n";
        return false;
      }
      if (!blocks.emplace(name, text).second) {
        std::cerr << markdown << ":" << opened_at << ": a second block named " << name << "\n";
        return false;
      }
    } else if (inside) {
      text += line + "\n";
    }
  }
  return true;
}

bool is_page(const std::string& arg) {
  return arg.size() > 3 && arg.compare(arg.size() - 3, 3, ".md") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int first_other = 1;
  while (first_other < argc && is_page(argv[first_other])) ++first_other;
  if (first_other == 1 || first_other >= argc) {
    std::cerr << "usage: extract_examples MARKDOWN... OUT_DIR NAME...\n";
    return 2;
  }
  const std::string out_dir = argv[first_other];
  const std::set<std::string> wanted(argv + first_other + 1, argv + argc);
  Blocks blocks;
  for (int i = 1; i < first_other; ++i)
    if (!read_page(argv[i], wanted, blocks)) return 1;
  for (const std::string& w : wanted)
    if (!blocks.count(w + ".cpp") && !blocks.count(w + ".cmake")) {
      std::cerr << "extract_examples: no block named '" << w << "' (```cpp " << w
                << ") in the pages given\n";
      return 1;
    }
  for (const auto& [file, body] : blocks) write_if_changed(out_dir + "/" + file, body);
  return 0;
}
