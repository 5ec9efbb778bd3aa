#include "tournament/worker_messages.h"

#include <algorithm>

namespace allfives::referee {

std::string result_record(const v1::IndexEntry& e) {
  worker::WorkerMessage m;
  *m.mutable_result() = e;
  return m.SerializeAsString();
}

std::string report_record(const worker::WorkerReport& report) {
  worker::WorkerMessage m;
  *m.mutable_report() = report;
  return m.SerializeAsString();
}

bool parse_worker_message(std::string_view record, worker::WorkerMessage* m, std::string* error) {
  if (!m->ParseFromArray(record.data(), static_cast<int>(record.size()))) {
    *error = "a message of " + std::to_string(record.size()) + " bytes that does not parse";
    return false;
  }
  if (m->kind_case() == worker::WorkerMessage::KIND_NOT_SET) {
    *error = "a message that holds neither a result nor a report";
    return false;
  }
  return true;
}

bool WorkerTotals::add(const worker::WorkerReport& report, std::string* error) {
  if (static_cast<size_t>(report.replaced_size()) > replaced.size()) {
    *error = "a report on " + std::to_string(report.replaced_size()) +
             " bots, and the tournament has " + std::to_string(replaced.size());
    return false;
  }
  peak_rss_kib = std::max<long>(peak_rss_kib, report.peak_rss_kib());
  for (int b = 0; b < report.replaced_size(); ++b)
    replaced[static_cast<size_t>(b)] += static_cast<int>(report.replaced(b));
  started += static_cast<int>(report.started());
  started_for_new_deals += static_cast<int>(report.started_for_new_deals());
  return true;
}

}  // namespace allfives::referee
