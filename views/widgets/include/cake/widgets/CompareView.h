// The Compare view: two kernels side by side. A summary of the deltas (predicted time and
// bottleneck, shared memory, registers, stages), the IR line diff with linked scrolling, and
// tabs for the graph diff (both graphs, marked nodes and edges), the changed declarations and
// operations, the findings that appeared or disappeared, and the PTX line diff. Paints a
// compare snapshot (the façade's compare job).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompareData.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTreeWidget;

namespace cake::views {
class SelectionModel;
}

namespace cake::widgets {

class GraphView;

/// Two read-only text panes whose rows correspond (fillers keep them aligned) and whose
/// scroll bars move together.
class DiffPane : public QWidget {
  Q_OBJECT
public:
  explicit DiffPane(QWidget* parent = nullptr);
  void setRows(const QVector<views::DiffRow>& rows, const QString& emptyText = {});
  QPlainTextEdit* left() const { return m_left; }
  QPlainTextEdit* right() const { return m_right; }
  int rowCount() const { return m_rows; }

private:
  QPlainTextEdit* m_left;
  QPlainTextEdit* m_right;
  int m_rows = 0;
};

class CompareView : public QWidget {
  Q_OBJECT
public:
  explicit CompareView(QWidget* parent = nullptr);
  void setSnapshot(const views::CompareSnapshotPtr& snapshot);
  const views::CompareSnapshotPtr& snapshot() const { return m_snapshot; }
  /// Both graphs are laid out and drawn with their marks.
  bool ready() const;
  QString summaryText() const;
  DiffPane* irPane() const { return m_ir; }
  DiffPane* ptxPane() const { return m_ptx; }
  GraphView* graphBefore() const { return m_graphBefore; }
  GraphView* graphAfter() const { return m_graphAfter; }
  QTreeWidget* changesTree() const { return m_changes; }
  QTreeWidget* findingsTree() const { return m_findings; }
  QTabWidget* tabs() const { return m_tabs; }

private:
  views::CompareSnapshotPtr m_snapshot;
  views::SelectionModel* m_selBefore;
  views::SelectionModel* m_selAfter;
  QLabel* m_summary;
  DiffPane* m_ir;
  DiffPane* m_ptx;
  QTabWidget* m_tabs;
  GraphView* m_graphBefore;
  GraphView* m_graphAfter;
  QTreeWidget* m_changes;
  QTreeWidget* m_findings;
};

} // namespace cake::widgets
