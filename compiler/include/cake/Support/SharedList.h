// An immutable list shared by copies: the role names and enclosing loops of an operation are the
// same for every operation of one block, so a kernel of a million operations keeps a few lists.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace cake {

/// A read-only std::vector whose copies share one heap array (copying costs a reference count,
/// not the elements). Empty lists share nothing.
template <typename T>
class SharedList {
public:
  SharedList() = default;
  explicit SharedList(std::vector<T> items)
      : m_items(items.empty() ? nullptr
                              : std::make_shared<const std::vector<T>>(std::move(items))) {}

  const std::vector<T>& items() const { return m_items ? *m_items : none(); }
  std::size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const T& operator[](std::size_t i) const { return items()[i]; }
  const T& front() const { return items().front(); }
  const T& back() const { return items().back(); }
  typename std::vector<T>::const_iterator begin() const { return items().begin(); }
  typename std::vector<T>::const_iterator end() const { return items().end(); }
  friend bool operator==(const SharedList& a, const SharedList& b) {
    return a.items() == b.items();
  }
  friend bool operator==(const SharedList& a, const std::vector<T>& b) { return a.items() == b; }

private:
  static const std::vector<T>& none() {
    static const std::vector<T> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<T>> m_items;
};

} // namespace cake
