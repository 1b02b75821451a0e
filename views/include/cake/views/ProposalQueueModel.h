// The Proposals dock's review queue as a table model: one row per proposal folder with its
// title, kind, workspace state, whose turn it is and author.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/ProposalData.h"

#include <QAbstractTableModel>

namespace cake::views {

class ProposalQueueModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { TitleColumn, KindColumn, StateColumn, TurnColumn, AuthorColumn, ColumnCount };
  /// Qt::UserRole of any column: the proposal's folder.
  static constexpr int DirRole = Qt::UserRole;
  /// Qt::UserRole + 1: the ProposalTurn as an int.
  static constexpr int TurnRole = Qt::UserRole + 1;

  using QAbstractTableModel::QAbstractTableModel;

  /// Replaces the queue (a scan job's result).
  void setQueue(const ProposalQueue& queue);
  const ProposalQueue& queue() const { return m_queue; }
  /// The row of a folder, or -1.
  int rowOf(const QString& dir) const;
  const ProposalEntry* entry(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

private:
  ProposalQueue m_queue;
};

} // namespace cake::views
