// Shared-memory descriptor layouts of wgmma / tcgen05.mma operands (PTX ISA, "Canonical
// Layouts" of the asynchronous warpgroup and tcgen05 matrix instructions).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Sema/MmaLayout.h"

namespace cake::sema {

std::int64_t MmaSmemLayout::readOffset(std::int64_t row, std::int64_t col) const {
  std::int64_t t = elemBytes > 0 && elemBytes <= 16 ? 16 / elemBytes : 1; // elements of 16 bytes
  if (!mnMajor) {
    // K-major: ((8,m),(T,2k)):((1T,SBO),(1,LBO)) without a swizzle, ((8,m),(T,2k)):((cT,SBO),(1,T))
    // with one (c = span / 16); instruction i starts kStepBytes * i further.
    std::int64_t i = col / instK, kin = col % instK;
    std::int64_t pitch = swizzleBytes ? swizzleBytes : 16;
    std::int64_t k = swizzleBytes ? kin * elemBytes : (kin % t) * elemBytes + (kin / t) * lbo;
    return i * kStepBytes + (row % 8) * pitch + (row / 8) * sbo + k;
  }
  // MN-major (row = k, col = mn): ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) without a swizzle,
  // ((T,c,m),(8,k)):((1,T,LBO),(cT,SBO)) with one.
  std::int64_t i = row / instK, kin = row % instK;
  if (!swizzleBytes)
    return i * kStepBytes + (kin % 8) * 16 + (kin / 8) * lbo + (col % t) * elemBytes +
           (col / t) * sbo;
  std::int64_t atom = swizzleBytes / elemBytes; // MN elements of one span
  return i * kStepBytes + (kin % 8) * swizzleBytes + (kin / 8) * sbo + (col % atom) * elemBytes +
         (col / atom) * lbo;
}

MmaSmemLayout deriveMmaSmemLayout(std::string_view swizzle, bool mnMajor, std::int64_t elemBytes,
                                  std::int64_t instK, std::int64_t rows,
                                  std::int64_t rowStrideBytes) {
  MmaSmemLayout l;
  l.swizzleBytes = swizzle == "128B" ? 128 : swizzle == "64B" ? 64 : swizzle == "32B" ? 32 : 0;
  l.mnMajor = mnMajor;
  l.elemBytes = elemBytes;
  l.instK = instK;
  std::int64_t sw = l.swizzleBytes;
  if (!mnMajor) {
    // LBO is unused by swizzled K-major layouts ("assumed 1"); 16 is the canonical value.
    l.lbo = 16;
    l.sbo = sw ? 8 * sw : 8 * rowStrideBytes;
    l.kStepBytes = instK * elemBytes; // K advances inside the atom / along the row
  } else if (sw) {
    // Atoms of one span along MN x 8 rows of K: LBO steps between MN atoms, SBO between groups
    // of 8 K rows.
    l.lbo = rows * sw;
    l.sbo = 8 * sw;
    l.kStepBytes = instK * sw;
  } else {
    // Core matrices of 16 MN bytes x 8 K rows: SBO steps to the next 16 bytes of MN, LBO to
    // the next 8 K rows.
    l.sbo = 16;
    l.lbo = 8 * rowStrideBytes;
    l.kStepBytes = instK * rowStrideBytes;
  }
  return l;
}

std::int64_t mmaInstructionK(ir::DType dtype) {
  int bits = ir::info(dtype).bits;
  return bits > 0 ? 256 / bits : 16;
}

std::vector<std::int64_t> operandStrides(const BufferInfo& buffer, const ir::Operand& operand,
                                         bool stageIndexed) {
  std::size_t rank = buffer.shape.size();
  std::vector<std::int64_t> strides(rank);
  std::int64_t stride = (ir::info(buffer.dtype).bits + 7) / 8;
  for (std::size_t d = rank; d-- > 0;) {
    strides[d] = stride;
    stride *= buffer.shape[d];
  }
  std::size_t first = stageIndexed && operand.subscripted && !operand.indices.empty() ? 1 : 0;
  if (!operand.subscripted || operand.indices.size() <= first)
    return strides;
  std::vector<std::int64_t> kept;
  for (std::size_t d = 0; d < rank && first + d < operand.indices.size(); ++d)
    if (operand.indices[first + d].kind != ir::Index::Kind::Point)
      kept.push_back(strides[d]);
  return kept;
}

} // namespace cake::sema
