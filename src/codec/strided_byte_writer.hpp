// Writes a stream of bytes, the elements of an array in C order, into a host array view of any
// strides, piece by piece (pieces may split elements). Lets a codec decode a chunk straight into
// its place in a larger array through a small buffer, with no chunk-sized intermediate.
#pragma once

#include <cstring>
#include <span>
#include <vector>

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

class StridedByteWriter {
 public:
  /// `target` must be host-accessible and outlive the writer.
  explicit StridedByteWriter(const NDBuffer& target)
      : base_(target.data()), shape_(target.shape()), strides_(target.byte_strides()) {
    const auto elem = static_cast<int64_t>(target.dtype().size());
    // The innermost dimension is one contiguous run when its elements are adjacent.
    if (!shape_.empty() && strides_.back() == elem) {
      run_bytes_ = static_cast<size_t>(shape_.back() * elem);
      shape_.pop_back();
      strides_.pop_back();
    } else {
      run_bytes_ = static_cast<size_t>(elem);
    }
    index_.assign(shape_.size(), 0);
    remaining_ = static_cast<size_t>(target.nbytes());
    run_ = base_;
  }

  /// Bytes still expected.
  size_t remaining() const { return remaining_; }

  /// Writes the next bytes; at most remaining() of them.
  void write(std::span<const std::byte> bytes) {
    while (!bytes.empty() && remaining_ > 0) {
      const size_t n = std::min(run_bytes_ - offset_, bytes.size());
      std::memcpy(run_ + offset_, bytes.data(), n);
      offset_ += n;
      remaining_ -= n;
      bytes = bytes.subspan(n);
      if (offset_ == run_bytes_) next_run();
    }
  }

 private:
  void next_run() {
    offset_ = 0;
    for (size_t d = index_.size(); d-- > 0;) {
      run_ += strides_[d];
      if (++index_[d] < shape_[d]) return;
      run_ -= strides_[d] * index_[d];
      index_[d] = 0;
    }
  }

  std::byte* base_;
  Shape shape_;
  std::vector<int64_t> strides_;
  Index index_;
  size_t run_bytes_ = 0;
  size_t offset_ = 0;
  size_t remaining_ = 0;
  std::byte* run_ = nullptr;
};

}  // namespace cuzarr
