// Shared memory of one CTA as every consumer states it: the capacity and residency findings,
// the memory view and `cake trace` (one function, one set of figures).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/KernelModel.h"

#include <cstdint>

namespace cake::verify {

/// Shared memory of one CTA, computed once (smemFootprint) for the capacity and residency
/// findings, the memory view and the CLI: every figure is per CTA except `perSm`.
struct SmemFootprint {
  std::int64_t buffers = 0;  ///< bytes up to the end of the last buffer (stages included)
  std::int64_t barriers = 0; ///< derived mbarrier words after the buffers (8 B per element)
  std::int64_t total = 0;    ///< what the kernel asks for: buffers, 8-byte aligned, + barriers
  std::int64_t reserved = 0; ///< what the system reserves per CTA besides (target fact)
  std::int64_t withReserved = 0; ///< total + reserved: what residency counts per CTA
  std::int64_t limit = 0;        ///< the target's limit per CTA (for `total`)
  std::int64_t perSm = 0;        ///< the target's shared memory per SM (for `withReserved`)
};
SmemFootprint smemFootprint(const sema::KernelModel& model);


} // namespace cake::verify
