// The Runs dock's results table: one row per stored run record (newest first) with its kernel,
// device, executor, verdict, median with spread, prediction and delta to the baseline.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/RunsData.h"

#include <QAbstractTableModel>

namespace cake::views {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    Kernel,
    Device,
    Executor,
    Correct,
    Median,
    Predicted,
    DeltaBaseline,
    When,
    ColumnCount
  };
  /// The run's store id (qint64) on every cell.
  static constexpr int IdRole = Qt::UserRole + 1;
  /// The cell's value for sorting (a number for the time columns, -1 when there is none).
  static constexpr int SortRole = Qt::UserRole + 2;

  explicit RunsModel(QObject* parent = nullptr);

  /// Replaces the rows (a model reset).
  void setRuns(QVector<RunEntry> runs);
  const QVector<RunEntry>& runs() const { return m_runs; }
  /// The entry of a row (nullptr out of range).
  const RunEntry* entry(int row) const;
  /// The row of the run with store id `id`, -1 when it is not shown.
  int rowOf(qint64 id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  /// "12.3 (12.1–12.6)" for a timed run; "—" (no timing) otherwise.
  static QString medianText(const RunEntry& e);
  /// "+4.1 %" (slower than the baseline) / "−12.0 %"; empty without a timed baseline.
  static QString deltaText(const RunEntry& e);

private:
  QVector<RunEntry> m_runs;
};

} // namespace cake::views
