// Rounding to the element types: one generic binary-float rounding parameterised by mantissa
// width, smallest normal exponent and largest finite value.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Reference/Rounding.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace cake::ref {

namespace {

struct FloatFormat {
  int mantissaBits; ///< explicit fraction bits
  int minExponent;  ///< exponent of the smallest normal value
  double maxFinite;
  bool saturates; ///< overflow gives +-maxFinite instead of infinity
};

std::optional<FloatFormat> floatFormat(ir::DType d) {
  switch (d) {
  case ir::DType::F32:
    return FloatFormat{23, -126, static_cast<double>(std::numeric_limits<float>::max()), false};
  case ir::DType::TF32:
    return FloatFormat{10, -126, std::ldexp(2.0 - std::ldexp(1.0, -10), 127), false};
  case ir::DType::F16:
    return FloatFormat{10, -14, 65504.0, false};
  case ir::DType::BF16:
    return FloatFormat{7, -126, std::ldexp(2.0 - std::ldexp(1.0, -7), 127), false};
  case ir::DType::F8E4M3:
    return FloatFormat{3, -6, 448.0, true};
  case ir::DType::F8E5M2:
    return FloatFormat{2, -14, 57344.0, true};
  case ir::DType::F6E2M3:
    return FloatFormat{3, 0, 7.5, true};
  case ir::DType::F6E3M2:
    return FloatFormat{2, -2, 28.0, true};
  case ir::DType::F4E2M1:
    return FloatFormat{1, 0, 6.0, true};
  default:
    return std::nullopt;
  }
}

/// Rounds to the format's grid with `towardZero` or ties-to-even.
double roundFloat(const FloatFormat& f, double x, bool towardZero) {
  if (std::isnan(x) || x == 0.0)
    return x;
  if (std::isinf(x))
    return f.saturates ? std::copysign(f.maxFinite, x) : x;
  int exp = std::ilogb(x);
  if (exp < f.minExponent)
    exp = f.minExponent; // subnormal: the quantum of the smallest normal binade
  double quantum = std::ldexp(1.0, exp - f.mantissaBits);
  double scaled = x / quantum; // exact: a power-of-two division
  double r = (towardZero ? std::trunc(scaled) : std::nearbyint(scaled)) * quantum;
  if (std::fabs(r) > f.maxFinite) {
    if (f.saturates || towardZero)
      return std::copysign(f.maxFinite, x);
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  }
  return r;
}

std::optional<std::pair<double, double>> intRange(ir::DType d) {
  switch (d) {
  case ir::DType::I64:
    return std::pair{-9223372036854775808.0, 9223372036854775807.0};
  case ir::DType::I32:
    return std::pair{-2147483648.0, 2147483647.0};
  case ir::DType::I16:
    return std::pair{-32768.0, 32767.0};
  case ir::DType::I8:
    return std::pair{-128.0, 127.0};
  case ir::DType::U64:
    return std::pair{0.0, 18446744073709551615.0};
  case ir::DType::U32:
    return std::pair{0.0, 4294967295.0};
  case ir::DType::U16:
    return std::pair{0.0, 65535.0};
  case ir::DType::U8:
    return std::pair{0.0, 255.0};
  case ir::DType::Pred:
    return std::pair{0.0, 1.0};
  default:
    return std::nullopt;
  }
}

double roundInt(ir::DType d, double x, bool towardZero) {
  auto range = intRange(d);
  if (!range || std::isnan(x))
    return 0.0;
  double r = towardZero ? std::trunc(x) : std::nearbyint(x);
  return std::fmin(std::fmax(r, range->first), range->second);
}

} // namespace

double roundTo(ir::DType dtype, double x) {
  if (dtype == ir::DType::F64)
    return x;
  if (dtype == ir::DType::F32)
    return static_cast<double>(static_cast<float>(x));
  if (auto f = floatFormat(dtype))
    return roundFloat(*f, x, false);
  return roundInt(dtype, x, false);
}

double roundTowardZero(ir::DType dtype, double x) {
  if (dtype == ir::DType::F64)
    return x;
  if (auto f = floatFormat(dtype))
    return roundFloat(*f, x, true);
  return roundInt(dtype, x, true);
}

double maxFinite(ir::DType dtype) {
  if (dtype == ir::DType::F64)
    return std::numeric_limits<double>::max();
  if (auto f = floatFormat(dtype))
    return f->maxFinite;
  if (auto r = intRange(dtype))
    return r->second;
  return 0.0;
}

} // namespace cake::ref
