// The output heat map of a CPU run: per output, its tiles (or, for a small output, its
// elements) coloured by error magnitude on a log scale, hover text naming the tile, its errors
// and the line that wrote it; a click selects that line's operation in every view. Thin: the
// scale, layout and hit testing are views::HeatScale / HeatMapGeometry.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/HeatMap.h"
#include "cake/views/RunData.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;

namespace cake::views {
class SelectionModel;
}

namespace cake::widgets {

class HeatMapCanvas;

class HeatMapView : public QWidget {
  Q_OBJECT
public:
  explicit HeatMapView(views::SelectionModel* selection, QWidget* parent = nullptr);

  /// Shows a run (null: the empty state).
  void setRun(const views::RunSnapshotPtr& run);
  const views::RunSnapshotPtr& run() const { return m_run; }
  /// Shows output `index` of the run.
  void setOutput(int index);
  int output() const { return m_output; }
  /// Element-level cells (only for an output small enough to keep them).
  void setElements(bool on);
  bool elements() const;
  /// The geometry of the cells as last painted (tests, hit testing).
  views::HeatMapGeometry geometry() const;
  /// Clicks the map at `point` (canvas coordinates): selects the writer's line; false when
  /// the point names no written element.
  bool activate(const QPointF& point);
  /// The hover text at `point` (canvas coordinates).
  QString toolTipAt(const QPointF& point) const;
  QWidget* canvas() const;

private:
  void updateHeader();

  views::SelectionModel* m_selection;
  views::RunSnapshotPtr m_run;
  int m_output = 0;
  QComboBox* m_outputs;
  QCheckBox* m_elementBox;
  QLabel* m_summary;
  HeatMapCanvas* m_canvas;
};

} // namespace cake::widgets
