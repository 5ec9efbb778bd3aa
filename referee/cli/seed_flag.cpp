#include "cli/seed_flag.h"

#include <charconv>

namespace allfives::referee {

CLI::Option* add_seed_flag(CLI::App* cmd, const std::string& names, std::optional<uint64_t>& seed,
                           const std::string& help) {
  // Checked here, before CLI11 converts: it would read "-1" as 2^64 - 1 and clamp 2^64 to it.
  const CLI::Validator whole_number(
      [](std::string& text) {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        return !text.empty() && ec == std::errc() && ptr == end
                   ? std::string()
                   : "a seed is a whole number from 0 to 18446744073709551615 (2^64 - 1), not '" +
                         text + "'";
      },
      "0..2^64-1");
  return cmd->add_option(names, seed, help)->check(whole_number);
}

}  // namespace allfives::referee
