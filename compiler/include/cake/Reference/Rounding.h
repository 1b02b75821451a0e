// Rounding of real values to the element types of Cake IR (bf16, fp16, fp8 e4m3 / e5m2, tf32,
// f32, integers), as the hardware's conversions do: round to nearest even, 8-bit floats
// saturating to finite. Shared by the reference operators and the CPU interpreter.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"

namespace cake::ref {

/// `x` rounded to the nearest value of `dtype` (ties to even). bf16, f16 and tf32 overflow to
/// infinity; e4m3 and e5m2 saturate to their largest finite value (cvt.rn.satfinite); NaN stays
/// NaN for every float type. Integer types round to nearest and saturate to their range (NaN
/// becomes 0, as cvt.rni.sat does). f64 is returned unchanged.
double roundTo(ir::DType dtype, double x);

/// `x` rounded toward zero (cvt.rz) in `dtype`; integer types truncate.
double roundTowardZero(ir::DType dtype, double x);

/// Largest finite value of a floating `dtype` (448 for e4m3, 57344 for e5m2).
double maxFinite(ir::DType dtype);

} // namespace cake::ref
