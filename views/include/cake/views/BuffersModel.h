// Table model of the on-chip buffers of a snapshot (shared and tensor memory): placement,
// size, stages, swizzle and the worst bank-conflict degree the verifier found on them.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace cake::views {

struct BufferRow {
  int buffer = -1; ///< index into KernelModel::buffers
  QString name;
  QString space;     ///< "smem" | "tmem"
  QString placement; ///< "bytes 0..65536" | "columns 0..256"
  qint64 stageBytes = 0;
  qint64 stages = 1;
  QString swizzle;
  int worstDegree = 0; ///< 0: no modelled access
  int accesses = 0;    ///< modelled (op, operand) accesses
};

class BuffersModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { NameColumn, SpaceColumn, PlacementColumn, BytesColumn, StagesColumn, SwizzleColumn, ConflictColumn, ColumnCount };
  enum Role { BufferRole = Qt::UserRole + 1 };

  explicit BuffersModel(QObject* parent = nullptr);
  void setSnapshot(const CheckSnapshotPtr& snapshot);
  const BufferRow* row(int row) const;
  /// Row of a buffer index, or -1.
  int rowOfBuffer(int buffer) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<BufferRow> m_rows;
};

} // namespace cake::views
