// Shared-memory swizzling as an address permutation (PTX ISA, "Tensor swizzling modes";
// CUTLASS Swizzle<B, 4, 3>): the CPU interpreter stores shared memory by physical byte address.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string_view>

namespace cake::interp {

/// The physical byte address of logical shared-memory byte `byte` under `mode` ("none",
/// "32B", "64B", "128B"): the 16-byte chunk index within each 128-byte row is XORed with the
/// row index modulo 2, 4 or 8. An unknown mode is the identity.
inline std::int64_t swizzledByte(std::string_view mode, std::int64_t byte) {
  std::int64_t mask = mode == "128B" ? 7 : mode == "64B" ? 3 : mode == "32B" ? 1 : 0;
  return byte ^ (((byte >> 7) & mask) << 4);
}

} // namespace cake::interp
