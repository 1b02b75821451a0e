// Findings table model: severity, code, family, location, message (+ notes and fix as tooltip).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/FindingsModel.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

namespace cake::views {

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setSnapshot(const CheckSnapshotPtr& snapshot) {
  std::vector<FindingRow> rows;
  if (snapshot) {
    const SourceManager& sm = *snapshot->result.sources;
    auto where = [&](SourceRange r) {
      if (!sm.contains(r.file))
        return QString();
      LineColumn lc = sm.lineColumn(r.file, r.begin);
      return QStringLiteral("%1:%2:%3")
          .arg(QFileInfo(QString::fromStdString(sm.name(r.file))).fileName())
          .arg(lc.line)
          .arg(lc.column);
    };
    for (const Diagnostic& d : snapshot->result.diagnostics) {
      FindingRow row;
      row.severity = d.severity;
      row.code = QString::fromStdString(d.code);
      row.family = QString::fromUtf8(toString(d.family).data(), int(toString(d.family).size()));
      row.message = QString::fromStdString(d.message);
      if (sm.contains(d.range.file)) {
        row.path = QString::fromStdString(sm.name(d.range.file));
        LineColumn b = sm.lineColumn(d.range.file, d.range.begin);
        LineColumn e = sm.lineColumn(d.range.file, d.range.end);
        row.line = int(b.line);
        row.column = int(b.column);
        row.endLine = int(e.line);
        row.endColumn = int(e.column);
      }
      for (const DiagNote& n : d.notes)
        row.notes << where(n.range) + ": " + QString::fromStdString(n.message);
      if (d.fix)
        row.fix = QString::fromStdString(d.fix->message);
      rows.push_back(std::move(row));
    }
  }
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

const FindingRow* FindingsModel::finding(int row) const {
  return row >= 0 && row < int(m_rows.size()) ? &m_rows[std::size_t(row)] : nullptr;
}

int FindingsModel::blockingCount() const {
  int n = 0;
  for (const FindingRow& r : m_rows)
    n += r.severity == Severity::Blocking;
  return n;
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount)
    return {};
  const FindingRow& r = m_rows[std::size_t(index.row())];
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case SeverityColumn:
      return QString::fromUtf8(toString(r.severity).data(), int(toString(r.severity).size()));
    case CodeColumn:
      return r.code;
    case FamilyColumn:
      return r.family;
    case LocationColumn:
      return r.line ? QStringLiteral("%1:%2").arg(r.line).arg(r.column) : QString();
    case MessageColumn:
      return r.message;
    }
    return {};
  case Qt::ToolTipRole: {
    QString tip = r.message;
    for (const QString& n : r.notes)
      tip += "\nnote: " + n;
    if (!r.fix.isEmpty())
      tip += "\nfix: " + r.fix;
    return tip;
  }
  case Qt::ForegroundRole:
    if (index.column() == SeverityColumn)
      return QBrush(r.severity == Severity::Blocking ? QColor(0xd0, 0x30, 0x30)
                    : r.severity == Severity::Report ? QColor(0xc0, 0x70, 0x00)
                                                     : QColor(0x30, 0x80, 0xc0));
    return {};
  case LineRole:
    return r.line;
  case ColumnRole:
    return r.column;
  case CodeRole:
    return r.code;
  case SeverityRole:
    return int(r.severity);
  }
  return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case SeverityColumn:
    return tr("Severity");
  case CodeColumn:
    return tr("Code");
  case FamilyColumn:
    return tr("Family");
  case LocationColumn:
    return tr("Line");
  case MessageColumn:
    return tr("Message");
  }
  return {};
}

} // namespace cake::views
