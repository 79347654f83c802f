// Ring<T>: a FIFO on a power-of-two circular buffer that grows by doubling and never shrinks,
// so steady-state push/pop never allocate (unlike std::deque, which allocates a block every
// few pushes). T must be default-constructible and movable; popped slots are left moved-from.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "base/error.h"

namespace simtlab::timing {

template <typename T>
class Ring {
 public:
  explicit Ring(size_t capacity = 8) { grow(capacity < 2 ? 2 : capacity); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return buf_[(head_ + size_ - 1) & mask_]; }
  /// The i-th element from the front.
  T& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }

  void push_back(T v) {
    if (size_ == buf_.size()) grow(buf_.size() * 2);
    buf_[(head_ + size_) & mask_] = std::move(v);
    ++size_;
  }
  T pop_front() {
    SIMTLAB_ASSERT(size_ > 0, "pop from an empty ring");
    T v = std::move(buf_[head_]);
    head_ = (head_ + 1) & mask_;
    --size_;
    return v;
  }
  void clear() {
    while (size_) pop_front();
    head_ = 0;
  }

 private:
  void grow(size_t want) {
    size_t cap = 2;
    while (cap < want) cap *= 2;
    std::vector<T> nb(cap);
    for (size_t i = 0; i < size_; ++i) nb[i] = std::move(buf_[(head_ + i) & mask_]);
    buf_ = std::move(nb);
    head_ = 0;
    mask_ = cap - 1;
  }

  std::vector<T> buf_;
  size_t head_ = 0;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace simtlab::timing
