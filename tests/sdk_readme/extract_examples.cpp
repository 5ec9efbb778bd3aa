// Writes the code blocks of a Markdown file that are tagged for testing into files, so the
// build compiles them and the tests run them: a block that opens with "```cpp NAME" goes to
// OUT_DIR/NAME.cpp, one with "```cmake NAME" to OUT_DIR/NAME.cmake.
//   extract_examples MARKDOWN OUT_DIR NAME...
// Fails (exit 1, saying where) if a cpp block has no name, a name is not among NAME..., is
// used twice, or a NAME has no block: every C++ example of the guide is built, none is lost.
// A file is rewritten only when its text changes, so an unchanged example is not rebuilt.
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: extract_examples MARKDOWN OUT_DIR NAME...\n";
    return 2;
  }
  const std::string markdown = argv[1], out_dir = argv[2];
  const std::set<std::string> wanted(argv + 3, argv + argc);
  std::ifstream in(markdown);
  if (!in) {
    std::cerr << "extract_examples: cannot read " << markdown << "\n";
    return 1;
  }
  std::map<std::string, std::string> blocks;  // NAME.ext -> text
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
      words >> language >> name;
      taken = language == "cpp" || (language == "cmake" && !name.empty());
      if (language == "cpp" && name.empty()) {
        std::cerr << markdown << ":" << number << ": a ```cpp block needs a name for the test "
                  << "that builds it (```cpp NAME)\n";
        return 1;
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
        return 1;
      }
      if (!blocks.emplace(name, text).second) {
        std::cerr << markdown << ":" << opened_at << ": a second block named " << name << "\n";
        return 1;
      }
    } else if (inside) {
      text += line + "\n";
    }
  }
  for (const std::string& w : wanted)
    if (!blocks.count(w + ".cpp") && !blocks.count(w + ".cmake")) {
      std::cerr << markdown << ": no block named '" << w << "' (```cpp " << w << ")\n";
      return 1;
    }
  for (const auto& [file, body] : blocks) write_if_changed(out_dir + "/" + file, body);
  return 0;
}
