#include "process/capped_output.h"

#include <algorithm>

namespace allfives::referee {

void CappedOutput::append(std::string_view data) {
  const size_t to_head = std::min(data.size(), head_cap_ - head_.size());
  head_.append(data.substr(0, to_head));
  data.remove_prefix(to_head);
  if (data.empty()) return;

  if (data.size() >= tail_cap_) {
    // The new data alone fills the tail: everything older in it is dropped.
    dropped_ += tail_.size() + (data.size() - tail_cap_);
    tail_.assign(data.substr(data.size() - tail_cap_));
    tail_start_ = 0;
    return;
  }
  // Fill the tail up to its capacity, then overwrite its oldest bytes in ring order.
  const size_t to_fill = std::min(data.size(), tail_cap_ - tail_.size());
  tail_.append(data.substr(0, to_fill));
  data.remove_prefix(to_fill);
  while (!data.empty()) {
    const size_t n = std::min(data.size(), tail_cap_ - tail_start_);
    tail_.replace(tail_start_, n, data.substr(0, n));
    dropped_ += n;
    tail_start_ = (tail_start_ + n) % tail_cap_;
    data.remove_prefix(n);
  }
}

CappedOutput::Taken CappedOutput::take() {
  Taken out{std::move(head_), dropped_};
  if (dropped_ > 0) out.text += marker(dropped_);
  out.text.append(tail_, tail_start_);
  out.text.append(tail_, 0, tail_start_);
  head_.clear();
  tail_.clear();
  tail_start_ = 0;
  dropped_ = 0;
  return out;
}

std::string CappedOutput::last(size_t n) const {
  std::string all = head_;
  all.append(tail_, tail_start_);
  all.append(tail_, 0, tail_start_);
  return all.size() <= n ? all : all.substr(all.size() - n);
}

std::string CappedOutput::marker(uint64_t dropped) {
  return "\n[... " + std::to_string(dropped) + " bytes dropped]\n";
}

}  // namespace allfives::referee
