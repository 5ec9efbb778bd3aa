// Work done on several threads and handed back in the order it was given: `referee verify`
// re-plays logs on `jobs` threads while its own thread reads the next index lines and prints
// the verdicts in index order. At most kWindow items are in flight, so memory does not grow
// with the length of the stream.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace allfives::referee {

template <typename Item, typename Result>
class OrderedPool {
 public:
  static constexpr size_t kWindow = 256;
  using Work = std::function<Result(const Item&)>;
  using Sink = std::function<void(Item&, Result&)>;

  // `jobs` threads run `work`; with 1 it runs on the caller's thread, no thread started.
  OrderedPool(int jobs, Work work, Sink sink) : work_(std::move(work)), sink_(std::move(sink)) {
    for (int j = 0; jobs > 1 && j < jobs; ++j) threads_.emplace_back([this] { run(); });
  }
  ~OrderedPool() { finish(); }
  OrderedPool(const OrderedPool&) = delete;
  OrderedPool& operator=(const OrderedPool&) = delete;

  // Queues an item (waiting while kWindow are in flight) and hands back, in order, every
  // item whose work is done.
  void push(Item item) {
    if (threads_.empty()) {
      Result r = work_(item);
      sink_(item, r);
      return;
    }
    std::unique_lock<std::mutex> lock(mu_);
    while (window_.size() >= kWindow) hand_back_front(lock);
    window_.push_back(Slot{std::move(item), Result{}, false});
    work_ready_.notify_one();
    while (!window_.empty() && window_.front().done) hand_back_front(lock);
  }

  // Hands back everything queued, then stops the threads.
  void finish() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!window_.empty()) hand_back_front(lock);
    stopping_ = true;
    work_ready_.notify_all();
    lock.unlock();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  struct Slot {
    Item item;
    Result result;
    bool done;
  };

  // A deque keeps its elements in place as it grows at the back, so a thread works on its
  // slot unlocked; a slot leaves only from the front, once done.
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_ready_.wait(lock, [&] { return stopping_ || taken_ < base_ + window_.size(); });
      if (taken_ >= base_ + window_.size()) return;
      Slot& slot = window_[taken_++ - base_];
      lock.unlock();
      Result r = work_(slot.item);
      lock.lock();
      slot.result = std::move(r);
      slot.done = true;
      done_.notify_all();
    }
  }

  void hand_back_front(std::unique_lock<std::mutex>& lock) {
    done_.wait(lock, [&] { return window_.front().done; });
    Slot slot = std::move(window_.front());
    window_.pop_front();
    ++base_;
    lock.unlock();
    sink_(slot.item, slot.result);
    lock.lock();
  }

  Work work_;
  Sink sink_;
  std::mutex mu_;
  std::condition_variable work_ready_, done_;
  std::deque<Slot> window_;
  size_t base_ = 0;   // how many items have left the window
  size_t taken_ = 0;  // how many items a thread has taken
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace allfives::referee
