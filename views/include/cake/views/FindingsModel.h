// Tree model of the findings of one check snapshot (each finding's notes and fix are its
// children), and the filter proxy of the findings panel (severity, family, free text).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>
#include <QString>
#include <vector>

namespace cake::views {

/// A secondary location of a finding ("barrier declared here"), resolved to text once.
struct NoteRow {
  QString message;
  QString path; ///< the file it is in (empty when it has no location)
  int line = 0, column = 0, endLine = 0, endColumn = 0;
};

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
  QStringList notes; ///< "file:line:col: message"
  std::vector<NoteRow> noteRows;
  QString fix;
};

/// A diagnostic as a displayed row (its notes and fix resolved to text).
FindingRow findingRow(const Diagnostic& d, const SourceManager& sources);

class FindingsModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column {
    SeverityColumn,
    CodeColumn,
    FamilyColumn,
    LocationColumn,
    MessageColumn,
    ColumnCount
  };
  enum Role {
    LineRole = Qt::UserRole + 1,
    ColumnRole,
    CodeRole,
    SeverityRole, ///< int(Severity) of the finding (children: of their finding)
    FamilyRole,
    PathRole,      ///< file of the item's location
    KindRole,      ///< ItemKind
    FindingRole,   ///< index of the finding (= the diagnostic index of the check result)
    SearchTextRole ///< everything the free-text filter matches: code, family, message, notes, fix
  };
  enum ItemKind { FindingItem, NoteItem, FixItem };

  explicit FindingsModel(QObject* parent = nullptr);

  void setSnapshot(const CheckSnapshotPtr& snapshot);
  const CheckSnapshotPtr& snapshot() const { return m_snapshot; }
  /// The rows of a CPU run of `text` (its verdict and findings), shown after the check's
  /// findings while the shown check is of that same text; a check of another text drops them
  /// (a stale run never shows). Empty rows: none.
  void setRunRows(const QString& text, std::vector<FindingRow> rows);
  /// The finding is a row of the CPU run (its index is past the check's diagnostics).
  bool isRunFinding(int finding) const {
    return finding >= m_checkRows && finding < int(m_rows.size());
  }
  /// Run rows shown now.
  int runRowCount() const { return int(m_rows.size()) - m_checkRows; }
  /// A finding by its index in the check result (FindingRole), roots and consequences alike.
  const FindingRow* finding(int row) const;
  /// All findings, consequences included (rowCount() counts the top-level ones).
  int findingCount() const { return int(m_rows.size()); }
  /// The findings caused by `finding` (shown under it).
  int consequenceCount(int finding) const {
    return finding >= 0 && finding < int(m_consequences.size())
               ? int(m_consequences[std::size_t(finding)].size())
               : 0;
  }
  int blockingCount() const;
  /// The family names present (sorted), for the panel's family filter.
  QStringList families() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

private:
  int childCount(int finding) const;
  /// The finding an index shows (a top-level row or a consequence under its cause), or -1 for
  /// a note or fix.
  int findingOf(const QModelIndex& index) const;
  void rebuild(const CheckSnapshotPtr& snapshot);
  CheckSnapshotPtr m_snapshot;
  QString m_runText;
  std::vector<FindingRow> m_runRows;
  int m_checkRows = 0; ///< rows of the check's diagnostics (run rows follow)
  std::vector<FindingRow> m_rows;
  /// Findings without a cause, in report order: the top-level rows.
  std::vector<int> m_roots;
  /// Per finding, the findings caused by it (diagnostic caused_by): shown as its children after
  /// its notes and fix, so a root cause and its consequences read as one tree.
  std::vector<std::vector<int>> m_consequences;
  std::vector<int> m_causeOf; ///< per finding, its cause or -1
};

/// Filters findings (top-level rows) by severity, family and free text; a shown finding keeps
/// all its notes and consequences.
class FindingsFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit FindingsFilterModel(QObject* parent = nullptr);

  void setSeverityShown(Severity severity, bool shown);
  bool severityShown(Severity severity) const;
  /// Empty: every family.
  void setFamily(const QString& family);
  QString family() const { return m_family; }
  /// Case-insensitive substring of the code, family, message, notes or fix.
  void setText(const QString& text);
  QString text() const { return m_text; }

  /// Findings shown (a shown cause with its consequences) / findings in the source model,
  /// consequences included: the same findings the severity boxes count.
  int shownCount() const;
  int totalCount() const;

Q_SIGNALS:
  void filterChanged();

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
  bool m_severity[3] = {true, true, true};
  QString m_family;
  QString m_text;
};

} // namespace cake::views
