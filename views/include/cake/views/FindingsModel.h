// Table model of the findings of one check snapshot.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace cake::views {

/// One displayed finding, resolved to text once when the snapshot arrives.
struct FindingRow {
  Severity severity = Severity::Blocking;
  QString code;
  QString family;
  QString path;
  int line = 0;
  int column = 0;
  int endLine = 0;
  int endColumn = 0;
  QString message;
  QStringList notes; ///< "path:line:col: message"
  QString fix;
};

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { SeverityColumn, CodeColumn, FamilyColumn, LocationColumn, MessageColumn, ColumnCount };
  enum Role { LineRole = Qt::UserRole + 1, ColumnRole, CodeRole, SeverityRole };

  explicit FindingsModel(QObject* parent = nullptr);

  void setSnapshot(const CheckSnapshotPtr& snapshot);
  const FindingRow* finding(int row) const;
  int blockingCount() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

private:
  std::vector<FindingRow> m_rows;
};

} // namespace cake::views
