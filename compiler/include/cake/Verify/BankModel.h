// The shared-memory bank and swizzle model of the performance analysis, public so that views
// draw exactly what the verifier judges (one function, one definition).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string_view>

namespace cake::verify {

/// Banks of shared memory and the bytes of one bank word.
inline constexpr int kSmemBanks = 32;
inline constexpr int kSmemBankBytes = 4;

/// Swizzle<B, 4, 3> on an absolute shared-memory byte address: 16-byte chunk bits [4, 4+B) are
/// XORed with bits [7, 7+B), B = 3 / 2 / 1 for `modeBytes` 128 / 64 / 32; any other mode is the
/// identity. (CUTLASS cute::GMMA::Layout_K_SW{128,64,32}_Atom, TMA CU_TENSOR_MAP_SWIZZLE_*.)
constexpr std::int64_t swizzleAddress(std::int64_t addr, int modeBytes) {
  switch (modeBytes) {
  case 128:
    return addr ^ (((addr >> 7) & 7) << 4);
  case 64:
    return addr ^ (((addr >> 7) & 3) << 4);
  case 32:
    return addr ^ (((addr >> 7) & 1) << 4);
  default:
    return addr;
  }
}

/// Span in bytes of a swizzle tag ("128B" → 128); 0 for "none" or anything else.
constexpr int swizzleModeBytes(std::string_view tag) {
  return tag == "128B" ? 128 : tag == "64B" ? 64 : tag == "32B" ? 32 : 0;
}

/// Bank of a (swizzled, physical) byte address.
constexpr int bankOf(std::int64_t physicalAddr) {
  return static_cast<int>((physicalAddr / kSmemBankBytes) % kSmemBanks);
}

/// How the performance analysis models the shared-memory accesses of a primitive.
enum class SmemAccessModel : std::uint8_t {
  None,        ///< not modelled (descriptors, TMA, lowering-chosen addresses)
  Matrix,      ///< ldmatrix / stmatrix: one 8x8 matrix (8 rows of 16 bytes) per phase
  PerThread,   ///< ld/st.shared (and ld/st.global): each thread moves its own slice
  Cooperative, ///< cp.async: the role copies one tile in `chunk`-byte pieces
};

/// The access model the performance analysis uses for a primitive, by name.
constexpr SmemAccessModel smemAccessModel(std::string_view primitive) {
  if (primitive == "ldmatrix" || primitive == "stmatrix")
    return SmemAccessModel::Matrix;
  if (primitive == "ld.shared" || primitive == "st.shared" || primitive == "ld.global" ||
      primitive == "st.global")
    return SmemAccessModel::PerThread;
  if (primitive == "cp.async")
    return SmemAccessModel::Cooperative;
  return SmemAccessModel::None;
}

} // namespace cake::verify
