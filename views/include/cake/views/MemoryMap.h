// The memory layout as plain data and math: the shared-memory byte map (buffers × stages at
// their offsets, mbarrier storage, free space, overlaps, the target's per-CTA limit), TMEM
// columns, and the element → bank grid of a buffer under its swizzle with the bank load of an
// access phase (the verifier's bank model, cake/Verify/BankModel.h).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

#include <cstdint>
#include <vector>

namespace cake::driver {
struct CheckResult;
}

namespace cake::views {

struct MemoryRegion {
  enum class Kind : quint8 { Buffer, Barriers, Free };
  Kind kind = Kind::Buffer;
  QString name;   ///< buffer name, "mbarriers", "free"
  int buffer = -1; ///< index into KernelModel::buffers
  int stage = -1;  ///< stage of a staged buffer, -1 for a single stage
  qint64 offset = 0;
  qint64 bytes = 0;
  int row = 0;     ///< byte-map row (one per buffer; barriers and free space on the pool row)
  QString pool;    ///< pool of a pool view
  qint64 end() const { return offset + bytes; }
};

/// Bytes claimed by two buffers at once. Views of one pool may share bytes (the verifier checks
/// their lifetimes instead): they are `sanctioned`, drawn amber rather than red.
struct MemoryOverlap {
  qint64 begin = 0, end = 0;
  int a = -1, b = -1; ///< buffer indices
  bool sanctioned = false;
};

struct MemoryRow {
  QString label;  ///< "a_s"
  QString detail; ///< "bf16[128, 64] × 4 stages · swizzle 128B"
  int buffer = -1; ///< -1 for the pool summary row
  QVector<int> multicastRanks; ///< CTA ranks a multicast copy writes this buffer in (cluster)
};

struct TmemRegion {
  QString name;
  int buffer = -1;
  qint64 colBegin = 0, colEnd = 0;
  QString detail;
};

/// A signal of a thread-block cluster that reaches other CTAs' shared memory: a multicast copy
/// (`tma.load … multicast=MASK`: the lowest rank of the mask issues it, every CTA of the mask
/// receives the tile and its bytes on its own barrier) or a remote arrival
/// (`mbarrier.arrive … cta_mask=MASK`: every CTA arrives on the barrier of each CTA of the mask).
struct ClusterDelivery {
  enum class Kind : quint8 { Multicast, RemoteArrive };
  Kind kind = Kind::Multicast;
  QString target;  ///< the buffer (multicast) or the barrier (remote arrive) it writes
  int buffer = -1; ///< multicast: the shared-memory buffer (KernelModel index)
  QString barrier; ///< the mbarrier that receives the bytes or the arrivals
  QString role;    ///< the issuing role
  qint64 mask = 0;
  QVector<int> ranks; ///< receiving CTA ranks
  int issuer = -1;    ///< multicast: the issuing rank; -1: every CTA issues (remote arrive)
  int line = 0;       ///< 1-based source line of the operation
  /// "b_s: multicast from CTA 0 into CTAs 0, 1 (tma.load, line 83; bytes on full)".
  QString text() const;
};

struct MemoryMap {
  QString target;
  qint64 limit = 0;         ///< the target's shared memory per CTA
  qint64 buffersEnd = 0;    ///< highest byte of any buffer (stages included)
  qint64 barrierBytes = 0;  ///< mbarrier storage placed after the buffers (8 B per element)
  qint64 total = 0;         ///< what the CTA needs (per CTA, without the reserved bytes)
  qint64 reserved = 0;      ///< what the system reserves per CTA besides (target fact)
  qint64 withReserved = 0;  ///< total + reserved: what residency counts per CTA
  qint64 perSm = 0;         ///< the target's shared memory per SM
  /// The figures with their scope, as the findings and the CLI state them: "per CTA: needs
  /// 163,904 B = buffers 163,840 B + mbarriers 64 B" and "per SM: 164,928 B a CTA with the
  /// reserved 1,024 B, of 233,472 B".
  QString perCtaSummary() const;
  QString perSmSummary() const;
  QVector<MemoryRow> rows;  ///< one per shared-memory buffer, then the pool summary row
  QVector<MemoryRegion> regions;
  QVector<MemoryOverlap> overlaps;
  /// Thread-block cluster: its CTAs (1 without a cluster), shape, and the signals that
  /// reach other CTAs (multicast buffers and remote barriers, in program order).
  int clusterSize = 1;
  QString clusterShape; ///< "2x1x1"
  QVector<ClusterDelivery> cluster;
  bool hasTmem = false;
  qint64 tmemLimit = 0; ///< columns
  QVector<TmemRegion> tmem;
  /// The byte span the map shows: max(limit, total), at least 1.
  qint64 span() const;
};

MemoryMap buildMemoryMap(const driver::CheckResult& result);

/// Every byte range covered by two buffer regions of different buffers (sorted by begin).
/// `poolOfBuffer[i]` names the pool of buffer i (empty: none); two views of one pool may share.
QVector<MemoryOverlap> findOverlaps(const QVector<MemoryRegion>& regions,
                                    const QVector<QString>& poolOfBuffer);

/// Geometry of the byte map: bytes → x inside [left, left + width), rows of fixed height.
struct ByteMapGeometry {
  double left = 0;
  double width = 800;
  double top = 0;
  double rowHeight = 22;
  double rowGap = 4;
  qint64 span = 1;

  double xOf(qint64 byte) const;
  qint64 byteAt(double x) const;
  double rowTop(int row) const { return top + row * (rowHeight + rowGap); }
  int rowAt(double y) const;
  /// The rectangle of a region; at least 1 pixel wide so tiny regions stay visible.
  QRectF rectFor(qint64 offset, qint64 bytes, int row) const;
};

// ----------------------------------------------------------------------------------------------
// Banks.

/// Where the words of a buffer land under its swizzle: rows of 128 bytes (32 banks × 4 bytes)
/// starting at an absolute 128-byte aligned address. Cell (row, bank) holds the buffer-relative
/// byte offset of the logical word stored there, or -1 outside the buffer.
struct BankGrid {
  qint64 base = 0;    ///< absolute address of row 0
  int rows = 0;
  int swizzle = 0;    ///< bytes (0, 32, 64, 128)
  qint64 bufferOffset = 0;
  qint64 bufferBytes = 0;
  QVector<qint64> logical; ///< rows × 32

  qint64 logicalAt(int row, int bank) const {
    return logical.value(row * 32 + bank, -1);
  }
  /// Grid cell of an absolute (unswizzled) byte address, or (-1, -1) outside the grid.
  QPoint cellOf(qint64 address) const;
};

/// The grid of `rows` lines of a buffer starting at absolute address `from` (rounded down to
/// 128 bytes).
BankGrid buildBankGrid(qint64 bufferOffset, qint64 bufferBytes, int swizzleBytes, qint64 from,
                       int rows);

/// Bank load of one access phase (unswizzled absolute addresses of `width` bytes each):
/// distinct 4-byte words per bank after swizzling; degree = the largest count (N-way).
struct BankHeat {
  QVector<int> wordsPerBank = QVector<int>(32, 0);
  QVector<qint64> physicalWords; ///< distinct swizzled word addresses (bytes)
  int degree = 0;
};
BankHeat bankHeat(const std::vector<std::int64_t>& phase, std::int64_t width, int swizzleBytes);

} // namespace cake::views
