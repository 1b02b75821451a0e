// Findings tree model (finding rows with their notes and fix as children) and its filter proxy.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/FindingsModel.h"

#include <algorithm>

#include <QBrush>
#include <QColor>
#include <QFileInfo>
#include <QSet>

namespace cake::views {

namespace {
QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), int(s.size()));
}


/// Resolves a range to its file and 1-based line:column span; false when it has no location.
template <typename Row> bool locate(const SourceManager& sm, const SourceRange& range, Row& row) {
  if (!sm.contains(range.file))
    return false;
  row.path = QString::fromStdString(sm.name(range.file));
  LineColumn b = sm.lineColumn(range.file, range.begin);
  LineColumn e = sm.lineColumn(range.file, range.end);
  row.line = int(b.line);
  row.column = int(b.column);
  row.endLine = int(e.line);
  row.endColumn = int(e.column);
  return true;
}

// Internal ids: 0 for a top-level finding row, finding index + 1 for the children of that
// finding (its notes, its fix, then the findings it causes).
constexpr quintptr kTopLevel = 0;
} // namespace

FindingsModel::FindingsModel(QObject* parent) : QAbstractItemModel(parent) {}

FindingRow findingRow(const Diagnostic& d, const SourceManager& sm) {
  FindingRow row;
  row.severity = d.severity;
  row.code = QString::fromStdString(d.code);
  row.family = str(toString(d.family));
  row.message = QString::fromStdString(d.message);
  locate(sm, d.range, row);
  for (const DiagNote& n : d.notes) {
    NoteRow note;
    note.message = QString::fromStdString(n.message);
    QString where;
    if (locate(sm, n.range, note)) {
      where = QStringLiteral("%1:%2:%3")
                  .arg(QFileInfo(note.path).fileName())
                  .arg(note.line)
                  .arg(note.column);
    }
    row.notes << where + ": " + note.message;
    row.noteRows.push_back(std::move(note));
  }
  if (d.fix)
    row.fix = QString::fromStdString(d.fix->message);
  return row;
}

void FindingsModel::setSnapshot(const CheckSnapshotPtr& snapshot) {
  if (!snapshot || snapshot->text != m_runText) {
    m_runText.clear();
    m_runRows.clear();
  }
  rebuild(snapshot);
}

void FindingsModel::setRunRows(const QString& text, std::vector<FindingRow> rows) {
  m_runText = rows.empty() ? QString() : text;
  m_runRows = std::move(rows);
  if (!m_snapshot || m_snapshot->text != m_runText)
    m_runRows.clear();
  rebuild(m_snapshot);
}

void FindingsModel::rebuild(const CheckSnapshotPtr& snapshot) {
  std::vector<FindingRow> rows;
  if (snapshot && snapshot->result.sources) {
    const SourceManager& sm = *snapshot->result.sources;
    for (const Diagnostic& d : snapshot->result.diagnostics)
      rows.push_back(findingRow(d, sm));
  }
  const int checkRows = int(rows.size());
  rows.insert(rows.end(), m_runRows.begin(), m_runRows.end());
  // Consequences hang under their root cause (matched by code and range, as caused_by names it).
  std::vector<int> roots, causeOf(rows.size(), -1);
  std::vector<std::vector<int>> consequences(rows.size());
  if (snapshot) {
    const auto& diags = snapshot->result.diagnostics;
    for (std::size_t i = 0; i < diags.size() && i < std::size_t(checkRows); ++i) {
      int cause = -1;
      if (const auto& c = diags[i].causedBy)
        for (std::size_t j = 0; j < diags.size() && cause < 0; ++j)
          if (j != i && !diags[j].causedBy && diags[j].code == c->code &&
              diags[j].range == c->range)
            cause = int(j);
      causeOf[i] = cause;
      if (cause >= 0)
        consequences[std::size_t(cause)].push_back(int(i));
      else
        roots.push_back(int(i));
    }
  }
  for (int i = checkRows; i < int(rows.size()); ++i)
    roots.push_back(i);
  beginResetModel();
  m_snapshot = snapshot;
  m_checkRows = checkRows;
  m_rows = std::move(rows);
  m_roots = std::move(roots);
  m_consequences = std::move(consequences);
  m_causeOf = std::move(causeOf);
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

QStringList FindingsModel::families() const {
  QSet<QString> seen;
  for (const FindingRow& r : m_rows)
    seen.insert(r.family);
  QStringList out(seen.begin(), seen.end());
  out.sort();
  return out;
}

int FindingsModel::childCount(int finding) const {
  const FindingRow* r = this->finding(finding);
  if (!r)
    return 0;
  return int(r->noteRows.size()) + (r->fix.isEmpty() ? 0 : 1) +
         int(m_consequences[std::size_t(finding)].size());
}

int FindingsModel::findingOf(const QModelIndex& index) const {
  if (!index.isValid())
    return -1;
  if (index.internalId() == kTopLevel)
    return index.row() < int(m_roots.size()) ? m_roots[std::size_t(index.row())] : -1;
  int parent = int(index.internalId() - 1);
  const FindingRow* r = finding(parent);
  if (!r)
    return -1;
  int own = int(r->noteRows.size()) + (r->fix.isEmpty() ? 0 : 1);
  int k = index.row() - own;
  const auto& list = m_consequences[std::size_t(parent)];
  return k >= 0 && k < int(list.size()) ? list[std::size_t(k)] : -1;
}

QModelIndex FindingsModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount)
    return {};
  if (!parent.isValid())
    return row < int(m_roots.size()) ? createIndex(row, column, kTopLevel) : QModelIndex();
  if (parent.column() != 0)
    return {}; // only column 0 has children
  int f = findingOf(parent);
  if (f < 0 || row >= childCount(f))
    return {}; // notes and fixes have no children
  return createIndex(row, column, quintptr(f) + 1);
}

QModelIndex FindingsModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kTopLevel)
    return {};
  int f = int(child.internalId() - 1);
  int cause = f < int(m_causeOf.size()) ? m_causeOf[std::size_t(f)] : -1;
  if (cause < 0) {
    auto it = std::find(m_roots.begin(), m_roots.end(), f);
    return it == m_roots.end() ? QModelIndex()
                               : createIndex(int(it - m_roots.begin()), 0, kTopLevel);
  }
  const FindingRow& c = m_rows[std::size_t(cause)];
  const auto& list = m_consequences[std::size_t(cause)];
  int k = int(std::find(list.begin(), list.end(), f) - list.begin());
  return createIndex(int(c.noteRows.size()) + (c.fix.isEmpty() ? 0 : 1) + k, 0,
                     quintptr(cause) + 1);
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid())
    return int(m_roots.size());
  if (parent.column() != 0)
    return 0;
  int f = findingOf(parent);
  return f < 0 ? 0 : childCount(f);
}

int FindingsModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.column() >= ColumnCount)
    return {};
  // A consequence under its cause is shown like a finding of its own.
  const int shown = findingOf(index);
  const bool top = shown >= 0;
  const int findingIndex = top ? shown : int(index.internalId() - 1);
  const FindingRow* rp = finding(findingIndex);
  if (!rp)
    return {};
  const FindingRow& r = *rp;
  if (!top) {
    if (index.row() >= int(r.noteRows.size()) + (r.fix.isEmpty() ? 0 : 1))
      return {};
    const bool isFix = index.row() >= int(r.noteRows.size());
    const NoteRow* n = isFix ? nullptr : &r.noteRows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      switch (index.column()) {
      case SeverityColumn:
        return isFix ? tr("fix") : tr("note");
      case LocationColumn:
        if (n && n->line)
          return n->path == r.path ? QStringLiteral("%1:%2").arg(n->line).arg(n->column)
                                   : QStringLiteral("%1:%2:%3")
                                         .arg(QFileInfo(n->path).fileName())
                                         .arg(n->line)
                                         .arg(n->column);
        return {};
      case MessageColumn:
        return isFix ? r.fix : n->message;
      }
      return {};
    case Qt::ForegroundRole:
      return QBrush(QColor(0x80, 0x80, 0x80));
    case LineRole:
      return n ? n->line : 0;
    case ColumnRole:
      return n ? n->column : 0;
    case PathRole:
      return n ? n->path : QString();
    case KindRole:
      return int(isFix ? FixItem : NoteItem);
    case FindingRole:
      return findingIndex;
    case CodeRole:
      return r.code;
    case SeverityRole:
      return int(r.severity);
    case FamilyRole:
      return r.family;
    }
    return {};
  }
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case SeverityColumn:
      return str(toString(r.severity));
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
      return QBrush(severityColor(int(r.severity)));
    return {};
  case LineRole:
    return r.line;
  case ColumnRole:
    return r.column;
  case CodeRole:
    return r.code;
  case SeverityRole:
    return int(r.severity);
  case FamilyRole:
    return r.family;
  case PathRole:
    return r.path;
  case KindRole:
    return int(FindingItem);
  case FindingRole:
    return findingIndex;
  case SearchTextRole:
    return QStringList{r.code, r.family, r.message, r.notes.join('\n'), r.fix}.join('\n');
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

// ---------------------------------------------------------------- filter

FindingsFilterModel::FindingsFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {}

void FindingsFilterModel::setSeverityShown(Severity severity, bool shown) {
  if (m_severity[int(severity)] == shown)
    return;
  m_severity[int(severity)] = shown;
  invalidateFilter();
  Q_EMIT filterChanged();
}

bool FindingsFilterModel::severityShown(Severity severity) const {
  return m_severity[int(severity)];
}

void FindingsFilterModel::setFamily(const QString& family) {
  if (m_family == family)
    return;
  m_family = family;
  invalidateFilter();
  Q_EMIT filterChanged();
}

void FindingsFilterModel::setText(const QString& text) {
  if (m_text == text)
    return;
  m_text = text;
  invalidateFilter();
  Q_EMIT filterChanged();
}

int FindingsFilterModel::shownCount() const {
  const auto* findings = qobject_cast<const FindingsModel*>(sourceModel());
  int shown = 0;
  for (int r = 0; r < rowCount(); ++r)
    shown += 1 + (findings ? findings->consequenceCount(
                                 index(r, 0).data(FindingsModel::FindingRole).toInt())
                           : 0);
  return shown;
}

int FindingsFilterModel::totalCount() const {
  if (const auto* findings = qobject_cast<const FindingsModel*>(sourceModel()))
    return findings->findingCount();
  return sourceModel() ? sourceModel()->rowCount() : 0;
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (sourceParent.isValid())
    return true; // notes and fixes follow their finding
  QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
  int severity = i.data(FindingsModel::SeverityRole).toInt();
  if (severity >= 0 && severity < 3 && !m_severity[severity])
    return false;
  if (!m_family.isEmpty() && i.data(FindingsModel::FamilyRole).toString() != m_family)
    return false;
  if (!m_text.isEmpty() &&
      !i.data(FindingsModel::SearchTextRole).toString().contains(m_text, Qt::CaseInsensitive))
    return false;
  return true;
}

} // namespace cake::views
