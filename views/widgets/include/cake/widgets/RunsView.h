// The Runs dock: device, executor, shapes and timeout of a run of the current kernel; Run,
// Cancel and Refresh; the stored runs (RunsModel) with the predicted-vs-measured scatter and its
// rank correlation and top-1 regret (an honest empty state without timed GPU runs); the run log;
// "Calibrate from these runs". Paints what the RunController holds; the main window wires it.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/RunController.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace cake::widgets {

class Plot;

class RunsView : public QWidget {
  Q_OBJECT
public:
  explicit RunsView(views::RunController* controller, QWidget* parent = nullptr);

  /// The request the controls describe (the kernel path left empty).
  views::RunRequest request() const;
  /// Sets the controls (device, executor, shapes, timeout).
  void setRequest(const views::RunRequest& request);
  /// The runs selected in the table (all shown runs when none is selected).
  QVector<views::RunEntry> selectedRuns() const;
  /// Selects the rows of these run ids.
  void selectRuns(const QList<qint64>& ids);
  /// Appends to the log pane.
  void appendLog(const QString& text);
  /// The text of the status line ("no workspace", "running …", the last outcome).
  QString statusText() const;
  /// The scatter's content (tests).
  const views::ScatterData& scatter() const { return m_scatter; }
  QTableView* table() const { return m_table; }
  Plot* plot() const { return m_plot; }

Q_SIGNALS:
  void runRequested(cake::views::RunRequest request);
  void calibrateRequested(QVector<cake::views::RunEntry> runs);

private:
  void updateScatter();
  void updateButtons();
  void tick();

  views::RunController* m_controller;
  QComboBox* m_device;
  QComboBox* m_executor;
  QComboBox* m_shapes;
  QDoubleSpinBox* m_timeout;
  QPushButton* m_run;
  QPushButton* m_cancel;
  QPushButton* m_refresh;
  QPushButton* m_calibrate;
  QLabel* m_status;
  QLabel* m_quality;
  QTableView* m_table;
  QSortFilterProxyModel* m_proxy;
  Plot* m_plot;
  QPlainTextEdit* m_log;
  views::ScatterData m_scatter;
  QString m_lastOutcome;
};

} // namespace cake::widgets
