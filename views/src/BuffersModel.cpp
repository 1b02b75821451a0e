// Buffers table model: shared- and tensor-memory buffers with their bank-conflict summary.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/BuffersModel.h"

#include <QBrush>
#include <QColor>

namespace cake::views {

BuffersModel::BuffersModel(QObject* parent) : QAbstractTableModel(parent) {}

void BuffersModel::setSnapshot(const CheckSnapshotPtr& snapshot) {
  std::vector<BufferRow> rows;
  if (snapshot) {
    const sema::KernelModel& m = snapshot->result.model;
    for (std::size_t i = 0; i < m.buffers.size(); ++i) {
      const sema::BufferInfo& b = m.buffers[i];
      if (b.space != ir::Space::Smem && b.space != ir::Space::Tmem)
        continue;
      BufferRow r;
      r.buffer = int(i);
      r.name = QString::fromStdString(b.name);
      bool smem = b.space == ir::Space::Smem;
      r.space = smem ? QStringLiteral("smem") : QStringLiteral("tmem");
      r.placement = smem ? QStringLiteral("bytes %1..%2").arg(b.offset).arg(b.offset + b.totalBytes())
                         : QStringLiteral("columns %1..%2").arg(b.colBegin).arg(b.colEnd);
      r.stageBytes = b.stageBytes();
      r.stages = b.stages;
      r.swizzle = QString::fromStdString(b.swizzle);
      for (const verify::SmemAccessPattern& p : snapshot->result.verification.smemAccesses)
        if (p.buffer == i) {
          ++r.accesses;
          r.worstDegree = std::max(r.worstDegree, p.degree);
        }
      rows.push_back(std::move(r));
    }
  }
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

const BufferRow* BuffersModel::row(int row) const {
  return row >= 0 && row < int(m_rows.size()) ? &m_rows[std::size_t(row)] : nullptr;
}

int BuffersModel::rowOfBuffer(int buffer) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].buffer == buffer)
      return int(i);
  return -1;
}

int BuffersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}

int BuffersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant BuffersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount)
    return {};
  const BufferRow& r = m_rows[std::size_t(index.row())];
  if (role == BufferRole)
    return r.buffer;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case NameColumn:
      return r.name;
    case SpaceColumn:
      return r.space;
    case PlacementColumn:
      return r.placement;
    case BytesColumn:
      return r.stageBytes;
    case StagesColumn:
      return r.stages;
    case SwizzleColumn:
      return r.swizzle;
    case ConflictColumn:
      return r.accesses == 0 ? QStringLiteral("not modelled")
             : r.worstDegree <= 1 ? QStringLiteral("conflict-free")
                                  : QStringLiteral("%1-way").arg(r.worstDegree);
    }
    return {};
  }
  if (role == Qt::ForegroundRole && index.column() == ConflictColumn && r.worstDegree > 1)
    return QBrush(QColor(0xc0, 0x40, 0x20));
  if (role == Qt::ToolTipRole)
    return QStringLiteral("%1: %2, %3 B per stage × %4").arg(r.name, r.placement).arg(r.stageBytes).arg(r.stages);
  return {};
}

QVariant BuffersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case NameColumn:
    return tr("Buffer");
  case SpaceColumn:
    return tr("Space");
  case PlacementColumn:
    return tr("Placement");
  case BytesColumn:
    return tr("Bytes/stage");
  case StagesColumn:
    return tr("Stages");
  case SwizzleColumn:
    return tr("Swizzle");
  case ConflictColumn:
    return tr("Banks");
  }
  return {};
}

} // namespace cake::views
