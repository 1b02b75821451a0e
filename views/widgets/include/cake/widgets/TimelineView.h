// The barrier / pipeline timeline: one lane per warp role from the verifier's trace, operations
// as blocks, wait spans, barrier marks, arrive→wait flow arrows labelled with slot and phase,
// findings on the events where they happen. Perfetto keys (W/S zoom, A/D pan, F focus), wheel
// zoom around the cursor, drag to pan; export as Chrome/Perfetto trace JSON.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/SelectionModel.h"
#include "cake/views/TimelineGeometry.h"

#include <QWidget>

class QLabel;
class QScrollArea;

namespace cake::widgets {

class TimelineCanvas;

class TimelineView : public QWidget {
  Q_OBJECT
public:
  explicit TimelineView(views::SelectionModel* selection, QWidget* parent = nullptr);

  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  const views::TimelineData* data() const;
  views::TimelineGeometry& geometry();
  QWidget* canvas() const;
  /// The vertical scroll area around the canvas (lanes that do not fit scroll).
  QScrollArea* scrollArea() const;

  /// Shows the whole trace.
  void fitAll();
  /// Shows the selected operation's events (F); the whole trace when nothing is selected.
  void focusSelection();
  /// Chrome trace-event JSON of the snapshot (the driver's exporter).
  bool exportTrace(const QString& path, QString* error = nullptr) const;
  /// Blocks highlighted for the current selection.
  const QVector<int>& highlighted() const;

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  friend class TimelineCanvas;
  views::SelectionModel* m_selection;
  views::CheckSnapshotPtr m_snapshot;
  QScrollArea* m_scroll;
  TimelineCanvas* m_canvas;
  QLabel* m_status;
};

} // namespace cake::widgets
