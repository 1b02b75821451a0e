// The barrier / pipeline timeline: one lane per warp role from the verifier's trace, operations
// as blocks, wait spans, barrier marks, arrive→wait flow arrows labelled with slot and phase,
// findings on the events where they happen. The x axis is the cost model's predicted time (µs,
// one CTA) or logical steps; zoomed out, arrows merge per pixel and colliding labels hide.
// Perfetto keys (W/S zoom, A/D pan, F focus), wheel zoom around the cursor, drag to pan, drag
// on the axis (or Shift+drag) to measure an interval; a legend; export as Chrome trace JSON.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/SelectionModel.h"
#include "cake/views/TimelineGeometry.h"

#include <QPair>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QScrollArea;

namespace cake::widgets {

class TimelineCanvas;
class TimelineLegend;

class TimelineView : public QWidget {
  Q_OBJECT
public:
  explicit TimelineView(views::SelectionModel* selection, QWidget* parent = nullptr);

  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  /// The cost estimate of the shown check: its timeline in predicted time (the time axis).
  /// An estimate of another check is ignored.
  void setCost(const views::CostSnapshotPtr& cost);
  /// The x axis: predicted time (the default once an estimate is there) or logical steps of
  /// one CTA, or the rounds of the cluster-wide simulation (every CTA x role of one cluster,
  /// multicast deliveries and remote arrivals as arrows; one CTA's steps without a cluster).
  enum class Axis { Time, Steps, Cluster };
  void setAxis(Axis axis);
  Axis axis() const { return m_axis; }
  /// Whether the predicted time axis is available (an estimate of the shown check).
  bool hasTimeAxis() const { return m_timeData != nullptr; }
  /// The shown timeline (on the current axis).
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
  /// The measured interval (drag on the axis or Shift+drag), in the axis' units; empty when
  /// none. setArea(a, a) clears it.
  QPair<double, double> area() const;
  void setArea(double from, double to);
  /// "Δ 1.23 µs (0.50 µs → 1.73 µs)" for the measured interval, empty when none.
  QString areaReadout() const;
  /// The legend strip (shown by default; the toolbar's Legend toggles it) and its entries.
  QWidget* legend() const;
  QStringList legendEntries() const;

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  void updateStatus();
  friend class TimelineCanvas;
  views::SelectionModel* m_selection;
  views::CheckSnapshotPtr m_snapshot;
  std::shared_ptr<const views::TimelineData> m_timeData; ///< of m_snapshot, from its estimate
  Axis m_axis = Axis::Time;
  QPair<double, double> m_keptTimeRange; ///< the time axis' range before an edit of the file
  QComboBox* m_axisBox;
  QCheckBox* m_legendBox;
  TimelineLegend* m_legend;
  QScrollArea* m_scroll;
  TimelineCanvas* m_canvas;
  QLabel* m_status;
};

} // namespace cake::widgets
