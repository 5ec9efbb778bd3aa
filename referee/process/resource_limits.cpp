#include "process/resource_limits.h"

namespace allfives::referee {

std::string ResourceLimits::describe() const {
  auto or_unlimited = [](uint64_t v, const std::string& text) {
    return v == 0 ? "unlimited " + text : std::to_string(v) + " " + text;
  };
  std::string out = "memory " + (memory_mib == 0 ? std::string("unlimited")
                                                 : std::to_string(memory_mib) + " MiB");
  out += ", " + or_unlimited(processes, "processes");
  out += ", " + or_unlimited(open_files, "open files");
  out += ", files up to " +
         (file_size_mib == 0 ? std::string("any size") : std::to_string(file_size_mib) + " MiB");
  if (no_core_dumps) out += ", no core dumps";
  if (cpu_percent != 0) out += ", CPU " + std::to_string(cpu_percent) + "% of one core";
  return out;
}

}  // namespace allfives::referee
