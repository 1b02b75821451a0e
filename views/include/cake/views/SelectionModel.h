// The one selection shared by every view (editor, findings, graph, timeline, layout): an
// operation (optionally as run by one role), a buffer, a trace event or a finding. Views call
// select*() with their own origin and follow selectionChanged() from the others.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/ViewData.h"

#include <QObject>

namespace cake::views {

enum class SelectionOrigin : quint8 {
  Program,
  Editor,
  Findings,
  Graph,
  Timeline,
  Layout,
  Code,
  Performance,
  Run ///< the CPU run's heat map
};

struct Selection {
  int op = -1;      ///< index into KernelModel::ops
  int role = -1;    ///< the role it runs in (-1: every role that runs it)
  int buffer = -1;  ///< shared-memory buffer (from the op, or selected directly)
  int event = -1;   ///< trace event (timeline)
  int finding = -1; ///< diagnostic index
  bool isEmpty() const { return op < 0 && buffer < 0 && event < 0 && finding < 0; }
  friend bool operator==(const Selection&, const Selection&) = default;
};

class SelectionModel : public QObject {
  Q_OBJECT
public:
  explicit SelectionModel(QObject* parent = nullptr);

  /// Adopts a new snapshot: an op selection follows its source line when it still exists.
  void setSnapshot(const CheckSnapshotPtr& snapshot);
  const CheckSnapshotPtr& snapshot() const { return m_snapshot; }
  const Selection& current() const { return m_current; }

  /// Selects an operation (and its first shared-memory buffer).
  void selectOp(int op, int role, SelectionOrigin origin);
  /// The operation on a source line, else the buffer declared there, else nothing.
  void selectLine(int line, SelectionOrigin origin);
  void selectBuffer(int buffer, SelectionOrigin origin);
  /// A trace event: its operation in its role.
  void selectEvent(int event, SelectionOrigin origin);
  /// A finding: the operation or buffer it is located on.
  void selectFinding(int finding, SelectionOrigin origin);
  void select(const Selection& selection, SelectionOrigin origin);
  void clear(SelectionOrigin origin);

  /// Where the editor shows the selection (op or buffer declaration).
  SourceSpan sourceOf(const Selection& selection) const;

Q_SIGNALS:
  /// Emitted only when the selection changes; `origin` is the view that changed it.
  void selectionChanged(const cake::views::Selection& selection, cake::views::SelectionOrigin origin);

private:
  const ViewData* data() const;
  CheckSnapshotPtr m_snapshot;
  Selection m_current;
};

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::Selection)
Q_DECLARE_METATYPE(cake::views::SelectionOrigin)
