// Interval arithmetic: sound bounds of integer operations, with exact results for exact inputs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/Interval.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace cake::sema {

namespace {
__extension__ typedef __int128 I128;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
bool fits(I128 v) { return v >= kMin && v <= kMax; }

/// [lo, hi] with values lo + k * stride; hi is rounded down onto the lattice.
IntervalResult make(I128 lo, I128 hi, I128 stride = 1) {
  if (!fits(lo) || !fits(hi))
    return {std::nullopt, IntervalError::Unbounded};
  if (stride < 1 || !fits(stride))
    stride = 1;
  if (hi > lo && stride > 1)
    hi = lo + (hi - lo) / stride * stride;
  return {Interval{static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi),
                   static_cast<std::int64_t>(stride)},
          IntervalError::None};
}
/// The stride that matters for congruences: 0 for an exact value (gcd(0, s) = s).
I128 step(const Interval& x) { return x.exact() ? 0 : std::max<std::int64_t>(1, x.stride); }
I128 gcd(I128 a, I128 b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    I128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}
IntervalResult exactValue(std::int64_t v) { return {Interval{v, v}, IntervalError::None}; }
IntervalResult unbounded() { return {std::nullopt, IntervalError::Unbounded}; }
} // namespace

IntervalResult applyBinary(ir::BinaryOp op, Interval x, Interval y) {
  using ir::BinaryOp;
  auto overflowOrUnbounded = [&]() -> IntervalResult {
    return {std::nullopt, x.exact() && y.exact() ? IntervalError::Overflow : IntervalError::Unbounded};
  };
  switch (op) {
  case BinaryOp::Add: {
    I128 lo = I128(x.lo) + y.lo, hi = I128(x.hi) + y.hi;
    return fits(lo) && fits(hi) ? make(lo, hi, gcd(step(x), step(y))) : overflowOrUnbounded();
  }
  case BinaryOp::Sub: {
    I128 lo = I128(x.lo) - y.hi, hi = I128(x.hi) - y.lo;
    return fits(lo) && fits(hi) ? make(lo, hi, gcd(step(x), step(y))) : overflowOrUnbounded();
  }
  case BinaryOp::Mul: {
    I128 c[] = {I128(x.lo) * y.lo, I128(x.lo) * y.hi, I128(x.hi) * y.lo, I128(x.hi) * y.hi};
    I128 lo = *std::min_element(c, c + 4), hi = *std::max_element(c, c + 4);
    // (x.lo + i sx)(y.lo + j sy) = x.lo y.lo + x.lo j sy + y.lo i sx + i j sx sy.
    I128 sx = step(x), sy = step(y);
    I128 stride = gcd(gcd(I128(x.lo) * sy, I128(y.lo) * sx), sx * sy);
    return fits(lo) && fits(hi) ? make(lo, hi, stride) : overflowOrUnbounded();
  }
  case BinaryOp::Div:
  case BinaryOp::Mod: {
    if (y.exact() && y.lo == 0)
      return {std::nullopt, IntervalError::DivideByZero};
    if (y.lo <= 0 && y.hi >= 0)
      return unbounded();
    if (op == BinaryOp::Div) {
      if (x.exact() && y.exact() && x.lo == kMin && y.lo == -1)
        return overflowOrUnbounded();
      I128 c[] = {I128(x.lo) / y.lo, I128(x.lo) / y.hi, I128(x.hi) / y.lo, I128(x.hi) / y.hi};
      // Non-negative lo + i s divided by d | s is lo / d + i (s / d).
      I128 stride = 1;
      if (y.exact() && y.lo > 0 && x.lo >= 0 && step(x) % y.lo == 0)
        stride = step(x) / y.lo;
      return make(*std::min_element(c, c + 4), *std::max_element(c, c + 4), stride);
    }
    if (x.exact() && y.exact())
      return exactValue(y.lo == -1 ? 0 : x.lo % y.lo);
    std::int64_t m = std::max(y.lo == kMin ? kMax : std::abs(y.lo), std::abs(y.hi)) - 1;
    if (x.lo >= 0) {
      if (y.exact() && x.hi - x.lo < y.lo && x.lo % y.lo <= x.hi % y.lo)
        return make(x.lo % y.lo, x.hi % y.lo, step(x));
      // lo + i s modulo m keeps the residue of lo modulo gcd(s, m).
      if (y.exact() && y.lo > 0) {
        I128 g = gcd(step(x), y.lo);
        I128 r = I128(x.lo) % g;
        return make(r, std::min<std::int64_t>(m, x.hi), g);
      }
      return make(0, std::min<std::int64_t>(m, x.hi));
    }
    return make(-m, m);
  }
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    if (!y.exact() || y.lo < 0 || y.lo > 63)
      return y.exact() ? overflowOrUnbounded() : unbounded();
    if (op == BinaryOp::Shr)
      return make(I128(x.lo) >> y.lo, I128(x.hi) >> y.lo);
    if (y.lo > 62)
      return overflowOrUnbounded();
    I128 lo = I128(x.lo) * (I128(1) << y.lo), hi = I128(x.hi) * (I128(1) << y.lo);
    return fits(lo) && fits(hi) ? make(lo, hi, step(x) * (I128(1) << y.lo)) : overflowOrUnbounded();
  }
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor: {
    if (x.exact() && y.exact()) {
      std::int64_t v = op == BinaryOp::BitAnd ? (x.lo & y.lo)
                       : op == BinaryOp::BitOr ? (x.lo | y.lo)
                                               : (x.lo ^ y.lo);
      return exactValue(v);
    }
    if (x.lo < 0 || y.lo < 0)
      return unbounded();
    if (op == BinaryOp::BitAnd)
      return make(0, std::min(x.hi, y.hi));
    std::int64_t top = std::max(x.hi, y.hi);
    std::int64_t mask = 1;
    while (mask <= top && mask < (std::int64_t(1) << 62))
      mask <<= 1;
    return make(0, mask - 1);
  }
  case BinaryOp::Min:
  case BinaryOp::Max: {
    if (x.exact() && y.exact())
      return exactValue(op == BinaryOp::Min ? std::min(x.lo, y.lo) : std::max(x.lo, y.lo));
    // Monotone in both operands; the result is one of them, so a stride both share survives
    // when their residues agree.
    I128 g = gcd(step(x), step(y));
    I128 stride = g > 1 && (I128(x.lo) - y.lo) % g == 0 ? g : 1;
    return op == BinaryOp::Min ? make(std::min(x.lo, y.lo), std::min(x.hi, y.hi), stride)
                               : make(std::max(x.lo, y.lo), std::max(x.hi, y.hi), stride);
  }
  case BinaryOp::CeilDiv: {
    if (y.exact() && y.lo == 0)
      return {std::nullopt, IntervalError::DivideByZero};
    if (y.lo <= 0)
      return unbounded(); // a divisor that may be zero or negative: no useful bound
    if (x.exact() && y.exact()) {
      auto v = ir::fold(op, x.lo, y.lo);
      return v ? exactValue(*v) : overflowOrUnbounded();
    }
    // Non-decreasing in x, non-increasing in y for y > 0.
    auto lo = ir::fold(op, x.lo, x.lo >= 0 ? y.hi : y.lo);
    auto hi = ir::fold(op, x.hi, x.hi >= 0 ? y.lo : y.hi);
    if (!lo || !hi)
      return overflowOrUnbounded();
    return make(*lo, *hi);
  }
  }
  return unbounded();
}

std::optional<Interval> applyUnary(ir::UnaryOp op, Interval a) {
  if (op == ir::UnaryOp::Neg) {
    if (a.lo == kMin)
      return std::nullopt;
    return Interval{-a.hi, -a.lo, a.stride};
  }
  return Interval{~a.hi, ~a.lo, a.stride};
}

std::optional<OutOfBounds> checkInBounds(const Interval& start, std::int64_t count,
                                         std::int64_t extent) {
  if (start.lo < 0)
    return OutOfBounds{true, start.lo};
  // 128-bit: a start near INT64_MAX plus the count must not wrap into range.
  I128 last = I128(start.hi) + count - 1;
  if (last >= extent)
    return OutOfBounds{false, static_cast<std::int64_t>(std::min<I128>(last, kMax))};
  return std::nullopt;
}

} // namespace cake::sema
