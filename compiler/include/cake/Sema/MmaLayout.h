// How a matrix instruction's shared-memory descriptor walks an operand (PTX ISA, "Canonical
// Layouts"), derived in one place for the lowering, which encodes it, and the verifier, which
// compares it with the layout the buffer's writers produce.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace cake::sema {

/// The descriptor layout of one shared-memory operand of wgmma / tcgen05.mma, in bytes. The
/// operand is seen as stored: [MN, K] when K-major, [K, MN] when MN-major.
struct MmaSmemLayout {
  std::int64_t swizzleBytes = 0; ///< 0 (none), 32, 64 or 128
  bool mnMajor = false;
  std::int64_t elemBytes = 2;
  std::int64_t instK = 16;     ///< K elements one instruction consumes
  std::int64_t lbo = 0;        ///< leading dimension byte offset
  std::int64_t sbo = 0;        ///< stride dimension byte offset
  std::int64_t kStepBytes = 0; ///< descriptor start advance per instruction along K

  /// Byte offset from the operand's start at which the descriptors of the whole K loop read
  /// element [row, col] of the stored operand, before the swizzle XOR. A core matrix is 8 rows
  /// of 16 contiguous bytes (no swizzle) or of one span (swizzled); LBO and SBO place the core
  /// matrices as the canonical layout of the mode says.
  std::int64_t readOffset(std::int64_t row, std::int64_t col) const;
};

/// The layout lowering encodes for an operand of `swizzle` ("none", "32B", "64B", "128B"),
/// `rows` rows as stored, consecutive rows `rowStrideBytes` apart in its buffer. Swizzled
/// modes use the span-wide atoms (hw-mma-swizzle-span keeps rows one span wide); without a
/// swizzle the offsets follow the buffer's plain rows: SBO (K-major) or LBO (MN-major) is
/// 8 rows of the buffer and the other offset the next 16 bytes of the row.
MmaSmemLayout deriveMmaSmemLayout(std::string_view swizzle, bool mnMajor, std::int64_t elemBytes,
                                  std::int64_t instK, std::int64_t rows,
                                  std::int64_t rowStrideBytes);

/// K elements of one wgmma / tcgen05.mma (kind::f16, kind::tf32, kind::f8f6f4) instruction:
/// 32 bytes of K.
std::int64_t mmaInstructionK(ir::DType dtype);

/// Byte strides, in the buffer, of the dimensions an operand keeps (a point index drops its
/// dimension, the stage index is not one): the operand's own dimension order.
std::vector<std::int64_t> operandStrides(const BufferInfo& buffer, const ir::Operand& operand,
                                         bool stageIndexed);

} // namespace cake::sema
