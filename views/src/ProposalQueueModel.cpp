// The review queue table model of the Proposals dock.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ProposalQueueModel.h"

#include <QDir>

namespace cake::views {

void ProposalQueueModel::setQueue(const ProposalQueue& queue) {
  beginResetModel();
  m_queue = queue;
  endResetModel();
}

int ProposalQueueModel::rowOf(const QString& dir) const {
  QString clean = QDir::cleanPath(dir);
  for (int i = 0; i < m_queue.entries.size(); ++i)
    if (m_queue.entries[i].dir == clean)
      return i;
  return -1;
}

const ProposalEntry* ProposalQueueModel::entry(int row) const {
  return row >= 0 && row < m_queue.entries.size() ? &m_queue.entries[row] : nullptr;
}

int ProposalQueueModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_queue.entries.size());
}

int ProposalQueueModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProposalQueueModel::data(const QModelIndex& index, int role) const {
  const ProposalEntry* e =
      index.isValid() && !index.parent().isValid() ? entry(index.row()) : nullptr;
  if (!e || index.column() < 0 || index.column() >= ColumnCount)
    return {};
  if (role == DirRole)
    return e->dir;
  if (role == TurnRole)
    return int(e->turn);
  if (role == Qt::ToolTipRole)
    return e->blocked.isEmpty() ? e->dir : e->dir + "\n" + e->blocked;
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case TitleColumn:
    return e->title;
  case KindColumn:
    return e->kind;
  case StateColumn:
    return e->state;
  case TurnColumn:
    return proposalTurnName(e->turn);
  case AuthorColumn:
    return e->author;
  }
  return {};
}

QVariant ProposalQueueModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case TitleColumn:
    return tr("Proposal");
  case KindColumn:
    return tr("Kind");
  case StateColumn:
    return tr("State");
  case TurnColumn:
    return tr("Whose turn");
  case AuthorColumn:
    return tr("Author");
  }
  return {};
}

} // namespace cake::views
