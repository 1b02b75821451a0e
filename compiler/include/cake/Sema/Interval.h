// Interval arithmetic over the integer expressions of Cake IR (index ranges, loop bounds).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"

#include <cstdint>
#include <optional>

namespace cake::sema {

/// An inclusive integer interval of the values an index expression can take, with their
/// congruence: every value is lo + k * stride (stride >= 1), so `(lane * 4) % 16 +: 4` is known
/// to end at 16, not 19.
struct Interval {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t stride = 1;
  bool exact() const { return lo == hi; }
  bool intersects(const Interval& o) const { return lo <= o.hi && o.lo <= hi; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

enum class IntervalError : std::uint8_t {
  None,
  Unbounded,    ///< the result is not statically bounded (no error)
  DivideByZero, ///< the divisor is exactly zero
  Overflow,     ///< exact operands whose result leaves 64 bits
};

struct IntervalResult {
  std::optional<Interval> value;
  IntervalError error = IntervalError::None;
};

/// Sound bounds of `a op b` for all values of the operands.
IntervalResult applyBinary(ir::BinaryOp op, Interval a, Interval b);
/// Sound bounds of a unary operation; nullopt when unbounded.
std::optional<Interval> applyUnary(ir::UnaryOp op, Interval a);

/// Where an access leaves its extent: below zero, or past the end.
struct OutOfBounds {
  bool below = false;     ///< the access can start below index 0
  std::int64_t index = 0; ///< the lowest start (below) or the highest index it can reach
};

/// Checks that `count` consecutive elements starting at any value of `start` stay inside
/// [0, extent). Every subscript of the type checker (barrier index, stage index, slice of a
/// dimension) goes through this one check; nullopt when the access is in bounds.
std::optional<OutOfBounds> checkInBounds(const Interval& start, std::int64_t count,
                                         std::int64_t extent);

} // namespace cake::sema
