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
  const size_t kept = head_.size() + tail_.size();
  Taken out{std::move(head_), dropped_, kept};
  if (dropped_ > 0) out.text += marker(dropped_);
  out.text.append(tail_, tail_start_);
  out.text.append(tail_, 0, tail_start_);
  head_.clear();
  tail_.clear();
  tail_start_ = 0;
  dropped_ = 0;
  return out;
}

CappedOutput::Taken CappedOutput::take(size_t cap) {
  const size_t kept = head_.size() + tail_.size();
  if (kept <= cap) return take();
  // The window as a stream: head_, then dropped_ unknown bytes, then the tail in ring order.
  // Keeping its first h and last t bytes leaves one gap, so one marker still says where.
  const size_t h = std::min(cap - cap / 2, head_.size() + (dropped_ == 0 ? tail_.size() : 0));
  const size_t t = cap - h;
  std::string tail = tail_.substr(tail_start_) + tail_.substr(0, tail_start_);
  std::string all = dropped_ == 0 ? head_ + tail : std::string();
  Taken out;
  if (dropped_ == 0) {
    out.text = all.substr(0, h);
    tail = all.substr(all.size() - t);
  } else {
    out.text = head_.substr(0, h);
    tail = tail.substr(tail.size() - std::min(t, tail.size()));
  }
  out.kept = out.text.size() + tail.size();
  out.dropped = dropped_ + (kept - out.kept);
  if (cap > 0) out.text += marker(out.dropped) + tail;
  head_.clear();
  tail_.clear();
  tail_start_ = 0;
  dropped_ = 0;
  return out;
}

std::string CappedOutput::marker(uint64_t dropped) {
  return "\n[... " + std::to_string(dropped) + " bytes dropped]\n";
}

}  // namespace allfives::referee
