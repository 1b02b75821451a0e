// Memory layout math: byte map regions, overlaps, geometry; TMEM columns; the bank grid of a
// buffer under its swizzle and the bank load of an access phase, with the verifier's swizzle.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/MemoryMap.h"

#include "cake/Driver/Compiler.h"
#include "cake/Verify/BankModel.h"
#include "cake/Verify/SmemFootprint.h"
#include "cake/views/ViewData.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace cake::views {

qint64 MemoryMap::span() const { return std::max<qint64>({limit, total, buffersEnd, 1}); }

QVector<MemoryOverlap> findOverlaps(const QVector<MemoryRegion>& regions,
                                    const QVector<QString>& poolOfBuffer) {
  QVector<MemoryOverlap> out;
  for (int i = 0; i < regions.size(); ++i) {
    const MemoryRegion& a = regions[i];
    if (a.kind != MemoryRegion::Kind::Buffer)
      continue;
    for (int j = i + 1; j < regions.size(); ++j) {
      const MemoryRegion& b = regions[j];
      if (b.kind != MemoryRegion::Kind::Buffer || b.buffer == a.buffer)
        continue;
      qint64 lo = std::max(a.offset, b.offset), hi = std::min(a.end(), b.end());
      if (lo >= hi)
        continue;
      MemoryOverlap o;
      o.begin = lo;
      o.end = hi;
      o.a = std::min(a.buffer, b.buffer);
      o.b = std::max(a.buffer, b.buffer);
      QString pa = poolOfBuffer.value(a.buffer), pb = poolOfBuffer.value(b.buffer);
      o.sanctioned = !pa.isEmpty() && pa == pb;
      out << o;
    }
  }
  std::sort(out.begin(), out.end(), [](const MemoryOverlap& x, const MemoryOverlap& y) {
    return std::tie(x.a, x.b, x.begin) < std::tie(y.a, y.b, y.begin);
  });
  // Merge touching ranges of the same pair (adjacent stages).
  QVector<MemoryOverlap> merged;
  for (const MemoryOverlap& o : out) {
    if (!merged.isEmpty() && merged.last().a == o.a && merged.last().b == o.b &&
        merged.last().end >= o.begin) {
      merged.last().end = std::max(merged.last().end, o.end);
      continue;
    }
    merged << o;
  }
  std::sort(merged.begin(), merged.end(),
            [](const MemoryOverlap& x, const MemoryOverlap& y) { return x.begin < y.begin; });
  return merged;
}

namespace {
QString groupedBytes(qint64 n) {
  QString digits = QString::number(n < 0 ? -n : n), out;
  for (int i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += QLatin1Char(',');
    out += digits[i];
  }
  return (n < 0 ? QStringLiteral("-") : QString()) + out + QStringLiteral(" B");
}
} // namespace

QString MemoryMap::perCtaSummary() const {
  QString s = QStringLiteral("per CTA: needs %1 = buffers %2 + mbarriers %3")
                  .arg(groupedBytes(total), groupedBytes(buffersEnd), groupedBytes(barrierBytes));
  if (qint64 pad = total - buffersEnd - barrierBytes; pad > 0)
    s += QStringLiteral(" + %1 alignment").arg(groupedBytes(pad));
  return s;
}

QString MemoryMap::perSmSummary() const {
  if (perSm <= 0 || total <= 0)
    return {};
  return QStringLiteral("per SM (residency): %1 a CTA with the reserved %2, %3 CTA(s) in %4")
      .arg(groupedBytes(withReserved), groupedBytes(reserved))
      .arg(withReserved > 0 ? perSm / withReserved : 0)
      .arg(groupedBytes(perSm));
}

QString ClusterDelivery::text() const {
  QStringList rs;
  for (int r : ranks)
    rs << QString::number(r);
  QString into = (ranks.size() == 1 ? QStringLiteral("CTA ") : QStringLiteral("CTAs ")) +
                 rs.join(QStringLiteral(", "));
  if (kind == Kind::Multicast)
    return QStringLiteral("%1: multicast from CTA %2 into %3 (tma.load, line %4; bytes on %5)")
        .arg(target)
        .arg(issuer)
        .arg(into)
        .arg(line)
        .arg(barrier);
  return QStringLiteral("%1: remote arrivals of every CTA's %2 on %3 (mbarrier.arrive, line %4)")
      .arg(target, role, into)
      .arg(line);
}

namespace {

/// The cluster signals of a kernel: multicast copies and remote arrivals with static masks.
void addClusterDeliveries(MemoryMap& map, const driver::CheckResult& r) {
  const sema::KernelModel& m = r.model;
  if (!m.grid)
    return;
  QStringList dims;
  for (std::int64_t c : m.grid->cluster) {
    map.clusterSize *= int(std::max<std::int64_t>(1, c));
    dims << QString::number(c);
  }
  map.clusterShape = dims.join(QLatin1Char('x'));
  if (map.clusterSize <= 1)
    return;
  auto intAttr = [](const sema::OpInfo& op, const char* name) -> qint64 {
    auto i = op.primitive->attributeIndex(name);
    if (!i || *i >= op.attributes.size() || op.attributes[*i].kind != reg::DefValue::Kind::Int)
      return 0;
    return op.attributes[*i].i;
  };
  for (const sema::OpInfo& op : m.ops) {
    if (!op.primitive || !op.stmt)
      continue;
    const std::string& name = op.primitive->name;
    bool multicast = name == "tma.load";
    qint64 mask = intAttr(op, multicast ? "multicast" : "cta_mask");
    if (mask == 0 || (!multicast && name != "mbarrier.arrive"))
      continue;
    ClusterDelivery d;
    d.kind = multicast ? ClusterDelivery::Kind::Multicast : ClusterDelivery::Kind::RemoteArrive;
    d.mask = mask;
    for (int k = 0; k < map.clusterSize && k < 16; ++k)
      if (mask >> k & 1)
        d.ranks << k;
    if (d.ranks.isEmpty())
      continue;
    d.issuer = multicast ? d.ranks.front() : -1;
    d.line = spanOf(r, r.module.sourceMap.range(op.stmt->id)).line;
    if (!op.roles.empty())
      d.role = QString::fromStdString(op.roles[0]);
    // The barrier operand: the last mbarrier the operation names.
    for (const sema::OperandInfo& oi : op.operands)
      if (oi.entity == sema::EntityKind::MBarrier && oi.entityIndex < m.barriers.size())
        d.barrier = QString::fromStdString(m.barriers[oi.entityIndex].name);
    if (multicast && !op.operands.empty() && op.operands[0].entity == sema::EntityKind::Buffer &&
        op.operands[0].entityIndex < m.buffers.size()) {
      d.buffer = int(op.operands[0].entityIndex);
      d.target = QString::fromStdString(m.buffers[op.operands[0].entityIndex].name);
    } else {
      d.target = d.barrier;
    }
    // One entry per (kind, target, mask): the unrolled copies of one stage are one signal.
    bool seen = std::any_of(map.cluster.begin(), map.cluster.end(), [&](const ClusterDelivery& o) {
      return o.kind == d.kind && o.target == d.target && o.mask == d.mask;
    });
    if (seen)
      continue;
    map.cluster << d;
    if (d.buffer >= 0)
      for (MemoryRow& row : map.rows)
        if (row.buffer == d.buffer)
          row.multicastRanks = d.ranks;
  }
}

} // namespace

MemoryMap buildMemoryMap(const driver::CheckResult& r) {
  MemoryMap map;
  const sema::KernelModel& m = r.model;
  const verify::ResourceSummary& res = r.verification.resources;
  map.target = QString::fromStdString(m.targetName);
  map.limit = res.smemLimit > 0 ? res.smemLimit : (m.target ? m.target->limit("smem_per_cta_bytes") : 0);
  // The footprint the resource analysis reports (computed once, also without an analysis):
  // derived words after the buffers, as lowering places them.
  const verify::SmemFootprint footprint = verify::smemFootprint(m);
  map.buffersEnd = footprint.buffers;
  map.barrierBytes = footprint.barriers;
  map.total = footprint.total;
  map.reserved = footprint.reserved;
  map.withReserved = footprint.withReserved;
  map.perSm = footprint.perSm;
  const qint64 barrierStart = map.total - map.barrierBytes;

  QVector<int> smem;
  QVector<QString> pools(int(m.buffers.size()));
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    pools[int(i)] = QString::fromStdString(m.buffers[i].pool);
    if (m.buffers[i].space == ir::Space::Smem && m.buffers[i].offset >= 0)
      smem << int(i);
  }
  std::stable_sort(smem.begin(), smem.end(), [&](int a, int b) {
    return m.buffers[std::size_t(a)].offset < m.buffers[std::size_t(b)].offset;
  });
  QVector<MemoryRegion> bufferRegions;
  for (int bi : smem) {
    const sema::BufferInfo& b = m.buffers[std::size_t(bi)];
    MemoryRow row;
    row.label = QString::fromStdString(b.name);
    QStringList dims;
    for (std::int64_t d : b.shape)
      dims << QString::number(d);
    row.detail = QStringLiteral("%1[%2]").arg(QString::fromUtf8(ir::toString(b.dtype).data()),
                                              dims.join(QStringLiteral(", ")));
    if (b.stages > 1)
      row.detail += QStringLiteral(" × %1 stages").arg(b.stages);
    if (b.swizzle != "none")
      row.detail += QStringLiteral(" · swizzle %1").arg(QString::fromStdString(b.swizzle));
    if (!b.pool.empty())
      row.detail += QStringLiteral(" · pool %1").arg(QString::fromStdString(b.pool));
    row.buffer = bi;
    int rowIndex = int(map.rows.size());
    map.rows << row;
    for (std::int64_t s = 0; s < b.stages; ++s) {
      MemoryRegion reg;
      reg.kind = MemoryRegion::Kind::Buffer;
      reg.name = row.label;
      reg.buffer = bi;
      reg.stage = b.stages > 1 ? int(s) : -1;
      reg.offset = b.offset + s * b.stageBytes();
      reg.bytes = b.stageBytes();
      reg.row = rowIndex;
      reg.pool = pools[bi];
      bufferRegions << reg;
    }
  }
  MemoryRow pool;
  pool.label = QStringLiteral("CTA");
  pool.detail = QStringLiteral("all of shared memory");
  int poolRow = int(map.rows.size());
  map.rows << pool;
  map.regions = bufferRegions;
  for (MemoryRegion reg : bufferRegions) {
    reg.row = poolRow;
    map.regions << reg;
  }
  if (map.barrierBytes > 0) {
    MemoryRegion reg;
    reg.kind = MemoryRegion::Kind::Barriers;
    reg.name = QStringLiteral("mbarriers");
    reg.offset = barrierStart;
    reg.bytes = map.barrierBytes;
    reg.row = poolRow;
    map.regions << reg;
  }
  // Free space on the CTA row: the gaps below the limit (or below the end when over it).
  std::vector<std::pair<qint64, qint64>> used;
  for (const MemoryRegion& reg : map.regions)
    if (reg.row == poolRow)
      used.emplace_back(reg.offset, reg.end());
  std::sort(used.begin(), used.end());
  qint64 cursor = 0, end = std::max(map.limit, map.total);
  for (auto [lo, hi] : used) {
    if (lo > cursor) {
      MemoryRegion gap;
      gap.kind = MemoryRegion::Kind::Free;
      gap.name = QStringLiteral("free");
      gap.offset = cursor;
      gap.bytes = lo - cursor;
      gap.row = poolRow;
      map.regions << gap;
    }
    cursor = std::max(cursor, hi);
  }
  if (cursor < end) {
    MemoryRegion gap;
    gap.kind = MemoryRegion::Kind::Free;
    gap.name = QStringLiteral("free");
    gap.offset = cursor;
    gap.bytes = end - cursor;
    gap.row = poolRow;
    map.regions << gap;
  }
  map.overlaps = findOverlaps(bufferRegions, pools);

  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const sema::BufferInfo& b = m.buffers[i];
    if (b.space != ir::Space::Tmem)
      continue;
    map.hasTmem = true;
    TmemRegion t;
    t.name = QString::fromStdString(b.name);
    t.buffer = int(i);
    t.colBegin = b.colBegin;
    t.colEnd = b.colEnd;
    QStringList dims;
    for (std::int64_t d : b.shape)
      dims << QString::number(d);
    t.detail = QStringLiteral("%1[%2], columns %3..%4")
                   .arg(QString::fromUtf8(ir::toString(b.dtype).data()), dims.join(QStringLiteral(", ")))
                   .arg(b.colBegin)
                   .arg(b.colEnd);
    map.tmem << t;
  }
  if (map.hasTmem)
    map.tmemLimit = m.target ? m.target->limit("tmem_columns") : 512;
  addClusterDeliveries(map, r);
  return map;
}

double ByteMapGeometry::xOf(qint64 byte) const {
  return left + width * double(byte) / double(std::max<qint64>(1, span));
}

qint64 ByteMapGeometry::byteAt(double x) const {
  double f = width > 0 ? (x - left) / width : 0;
  return std::clamp<qint64>(qint64(std::floor(f * double(span))), 0, span);
}

int ByteMapGeometry::rowAt(double y) const {
  if (y < top)
    return -1;
  int row = int(std::floor((y - top) / (rowHeight + rowGap)));
  return y - rowTop(row) < rowHeight ? row : -1;
}

QRectF ByteMapGeometry::rectFor(qint64 offset, qint64 bytes, int row) const {
  double x0 = xOf(offset), x1 = xOf(offset + bytes);
  return {x0, rowTop(row), std::max(1.0, x1 - x0), rowHeight};
}

QPoint BankGrid::cellOf(qint64 address) const {
  qint64 p = verify::swizzleAddress(address & ~qint64(3), swizzle);
  qint64 row = (p - base) / 128;
  if (p < base || row >= rows)
    return {-1, -1};
  return {verify::bankOf(p), int(row)};
}

BankGrid buildBankGrid(qint64 bufferOffset, qint64 bufferBytes, int swizzleBytes, qint64 from,
                       int rows) {
  BankGrid g;
  g.base = (from / 128) * 128;
  g.rows = std::max(0, rows);
  g.swizzle = swizzleBytes;
  g.bufferOffset = bufferOffset;
  g.bufferBytes = bufferBytes;
  g.logical.fill(-1, g.rows * 32);
  for (qint64 a = g.base; a < g.base + qint64(g.rows) * 128; a += verify::kSmemBankBytes) {
    if (a < bufferOffset || a >= bufferOffset + bufferBytes)
      continue;
    // The swizzle permutes 16-byte chunks inside their 128-byte row: the row is kept.
    qint64 p = verify::swizzleAddress(a, swizzleBytes);
    int row = int((p - g.base) / 128);
    if (row < 0 || row >= g.rows)
      continue;
    g.logical[row * 32 + verify::bankOf(p)] = a - bufferOffset;
  }
  return g;
}

BankHeat bankHeat(const std::vector<std::int64_t>& phase, std::int64_t width, int swizzleBytes) {
  BankHeat h;
  std::set<std::int64_t> words;
  for (std::int64_t a : phase)
    for (std::int64_t w = a / 4; w <= (a + std::max<std::int64_t>(width, 1) - 1) / 4; ++w)
      words.insert(verify::swizzleAddress(w * 4, swizzleBytes));
  for (std::int64_t p : words) {
    h.physicalWords << p;
    int& n = h.wordsPerBank[verify::bankOf(p)];
    ++n;
    h.degree = std::max(h.degree, n);
  }
  return h;
}

} // namespace cake::views
