// The performance view: the roofline of the kernel's target with the predicted point, its
// bounds and measured runs; the predicted time per operation and per role; the bottleneck and
// the hints. Paints a cost snapshot (computed by the façade's cost job); says why when there
// is none. Clicking an operation's bar selects it in every view.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompareData.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/SelectionModel.h"

#include <QWidget>

class QLabel;
class QTextBrowser;
class QSplitter;

namespace cake::widgets {

class Plot;

class PerformanceView : public QWidget {
  Q_OBJECT
public:
  explicit PerformanceView(views::SelectionModel* selection, QWidget* parent = nullptr);

  /// A new check arrived: its estimate is pending (or impossible: refused kernel).
  void setCheck(const views::CheckSnapshotPtr& snapshot);
  void setCost(const views::CostSnapshotPtr& cost);
  /// The shown check against the pinned baseline (null: no baseline): Nsight-Compute-style
  /// columns baseline / current / delta under the header.
  void setBaselineDelta(const views::BaselineDeltaPtr& delta);
  /// The baseline table as shown (empty without a baseline).
  QString baselineText() const;
  /// Check job id of the estimate shown (0: none yet).
  quint64 shownCheck() const { return m_cost ? m_cost->checkJob : 0; }
  /// The check shown is waiting for its cost job.
  bool pending() const { return m_pending; }
  const views::CostSnapshotPtr& cost() const { return m_cost; }
  Plot* roofline() const { return m_roofline; }
  Plot* opBars() const { return m_ops; }
  Plot* roleBars() const { return m_roles; }
  QString statusText() const;

Q_SIGNALS:
  /// "Try" on a hint that carries its edit: hint `index` of `cost`'s estimate.
  void tryHint(cake::views::CostSnapshotPtr cost, int index);
  /// "Apply" on such a hint: its edit goes into the editor (undoable) and is re-checked.
  void applyHint(cake::views::CostSnapshotPtr cost, int index);

protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  void render();
  /// Marks the shared selection's operation on the per-operation bars (none: no mark).
  void highlightSelectedOp();
  views::SelectionModel* m_selection;
  views::CostSnapshotPtr m_cost;
  quint64 m_check = 0;
  bool m_pending = false;
  QString m_waiting;
  QLabel* m_header;
  QLabel* m_baseline;
  views::BaselineDeltaPtr m_delta;
  Plot* m_roofline;
  Plot* m_ops;
  Plot* m_roles;
  QTextBrowser* m_hints;
  QSplitter* m_split = nullptr;
  QSplitter* m_right = nullptr;
  bool m_sized = false;
};

} // namespace cake::widgets
