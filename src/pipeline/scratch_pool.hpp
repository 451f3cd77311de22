// A pool of reusable scratch objects (e.g. output buffers) for work that runs in parallel: each
// task takes one for its duration and gives it back, so that buffers keep their pages from one
// chunk to the next and the pool holds about one per thread. Unlike a thread_local, a scratch
// object stays with its task even when a nested parallel loop runs other tasks on the same thread.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace cuzarr {

template <class T>
class ScratchPool {
 public:
  /// A scratch object taken from the pool; it goes back when the lease ends.
  class Lease {
   public:
    Lease(ScratchPool& pool, std::unique_ptr<T> item) : pool_(&pool), item_(std::move(item)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->give_back(std::move(item_)); }
    T& operator*() const { return *item_; }
    T* operator->() const { return item_.get(); }

   private:
    ScratchPool* pool_;
    std::unique_ptr<T> item_;
  };

  /// A free scratch object, or a new (value-initialised) one when none is free.
  Lease take() {
    std::unique_ptr<T> item;
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        item = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!item) item = std::make_unique<T>();
    return Lease(*this, std::move(item));
  }

 private:
  void give_back(std::unique_ptr<T> item) noexcept {
    std::lock_guard lock(mutex_);
    try {
      free_.push_back(std::move(item));
    } catch (...) {  // no room to remember it: it is freed
    }
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace cuzarr
