// A vector in 16 bytes (pointer, 32-bit size and capacity) for the per-operation tables of the
// checker: a 50 MB kernel keeps millions of small lists, and std::vector's 24 bytes add up.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <utility>

namespace cake {

/// The subset of std::vector the checker uses. At most 2^32 - 1 elements (a length_error
/// beyond). Grows by doubling like std::vector; reserve() first to allocate exactly.
template <typename T> class CompactVector {
public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  CompactVector() noexcept = default;
  CompactVector(std::initializer_list<T> init) { assignRange(init.begin(), init.size()); }
  CompactVector(const CompactVector& other) { assignRange(other.m_data, other.m_size); }
  CompactVector(CompactVector&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)),
        m_capacity(std::exchange(other.m_capacity, 0)) {}
  CompactVector& operator=(const CompactVector& other) {
    if (this != &other) {
      clear();
      assignRange(other.m_data, other.m_size);
    }
    return *this;
  }
  CompactVector& operator=(CompactVector&& other) noexcept {
    if (this != &other) {
      release();
      m_data = std::exchange(other.m_data, nullptr);
      m_size = std::exchange(other.m_size, 0);
      m_capacity = std::exchange(other.m_capacity, 0);
    }
    return *this;
  }
  ~CompactVector() { release(); }

  std::size_t size() const { return m_size; }
  std::size_t capacity() const { return m_capacity; }
  bool empty() const { return m_size == 0; }
  T* data() { return m_data; }
  const T* data() const { return m_data; }
  T* begin() { return m_data; }
  T* end() { return m_data + m_size; }
  const T* begin() const { return m_data; }
  const T* end() const { return m_data + m_size; }
  T& operator[](std::size_t i) { return m_data[i]; }
  const T& operator[](std::size_t i) const { return m_data[i]; }
  T& front() { return m_data[0]; }
  const T& front() const { return m_data[0]; }
  T& back() { return m_data[m_size - 1]; }
  const T& back() const { return m_data[m_size - 1]; }
  operator std::span<const T>() const { return {m_data, m_size}; }

  void reserve(std::size_t n) {
    if (n > m_capacity)
      reallocate(n);
  }
  template <typename... Args> T& emplace_back(Args&&... args) {
    if (m_size < m_capacity) {
      T* slot = ::new (static_cast<void*>(m_data + m_size)) T(std::forward<Args>(args)...);
      ++m_size;
      return *slot;
    }
    // The new element first: args may refer to an element of this vector.
    std::size_t n = m_capacity ? std::size_t(m_capacity) * 2 : 1;
    T* fresh = allocate(n);
    T* slot = ::new (static_cast<void*>(fresh + m_size)) T(std::forward<Args>(args)...);
    adopt(fresh, n);
    ++m_size;
    return *slot;
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  /// n copies of value, in exactly n slots when the vector was empty and unreserved.
  void assign(std::size_t n, const T& value) {
    clear();
    reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      emplace_back(value);
  }
  void clear() noexcept {
    std::destroy(m_data, m_data + m_size);
    m_size = 0;
  }

private:
  void assignRange(const T* first, std::size_t n) {
    reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      emplace_back(first[i]);
  }
  static T* allocate(std::size_t n) {
    if (n > UINT32_MAX)
      throw std::length_error("CompactVector: more than 2^32 - 1 elements");
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
  }
  void reallocate(std::size_t n) { adopt(allocate(n), n); }
  /// Moves the elements into `fresh` (n slots) and frees the old block.
  void adopt(T* fresh, std::size_t n) {
    std::uninitialized_move(m_data, m_data + m_size, fresh);
    std::destroy(m_data, m_data + m_size);
    deallocate();
    m_data = fresh;
    m_capacity = static_cast<std::uint32_t>(n);
  }
  void deallocate() noexcept {
    if (m_data)
      ::operator delete(m_data, std::align_val_t(alignof(T)));
  }
  void release() noexcept {
    clear();
    deallocate();
    m_data = nullptr;
    m_capacity = 0;
  }

  T* m_data = nullptr;
  std::uint32_t m_size = 0;
  std::uint32_t m_capacity = 0;
};

} // namespace cake
