// The Runs dock's data: the workspace store's run records as table rows, the predicted-vs-
// measured scatter with Spearman's rho and top-1 regret (timed GPU records only: a CPU run proves
// correctness, never speed), measured roofline points, and a calibration proposal written from
// selected timed records for the proposal flow (docs/workbench.md, "Runs").
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Run/Record.h"

#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace cake::driver {
class Compiler;
}
namespace cake::ws {
struct RunRow;
}

namespace cake::views {

/// One stored run as the dock shows it: the store's columns and its parsed record.
struct RunEntry {
  qint64 id = 0;
  QString kernel, sourcePath, target, executor, workload, createdAt, scheduleHash;
  QString deviceKind; ///< "gpu", "cpu", or "" when the record did not say (no run happened)
  QString deviceName; ///< "NVIDIA H200", "cpu (cake interpreter)", "none"
  std::optional<bool> correct;
  QString status;  ///< "correct", "INCORRECT", "unchecked" or the first error's code
  QString details; ///< errors and warnings, one per line (tooltip)
  /// Timing: only a GPU record with samples; a CPU record is never timed (the interpreter's wall
  /// time says nothing about a kernel's speed).
  bool timed = false;
  double medianUs = 0, q1Us = 0, q3Us = 0;
  int samples = 0;
  std::optional<double> predictedUs;
  QString baselineName;
  std::optional<double> baselineUs;
  QString recordError; ///< the stored record did not parse (shown, never dropped)

  /// (median - baseline) / baseline, when timed with a timed baseline.
  std::optional<double> deltaVsBaseline() const;
};

/// The entry of one store row (the record parsed; a bad record keeps the row with recordError).
RunEntry runEntry(const ws::RunRow& row);
/// The runs of the workspace in `dir`, newest first; `error` set (and nothing returned) when the
/// store cannot be opened or read.
QVector<RunEntry> loadRuns(const QString& dir, QString* error);

/// The predicted-vs-measured scatter over timed GPU records that carry a prediction.
struct ScatterData {
  QVector<QPointF> points;        ///< (predicted µs, measured median µs)
  QStringList labels;             ///< kernel per point
  QStringList groups;             ///< workload per point (alternatives for one problem)
  std::optional<double> spearman; ///< with >= 2 points
  std::optional<double> regret;   ///< with a workload measured for >= 2 kernels
  std::size_t regretGroups = 0;
  /// Why there is nothing (or little) to show: the honest empty state.
  QString note;
  int cpuRecords = 0, untimedGpuRecords = 0;
};
/// The scatter of `runs`: one point per kernel and schedule hash and device (its newest timed
/// record), only correct timed GPU records with a predicted time.
ScatterData scatterData(const QVector<RunEntry>& runs);

/// Measured roofline points of a kernel: the median of each timed GPU record of `runs` whose
/// schedule hash is `scheduleHash` and target `target`, at `flops` (one point per record).
struct MeasuredPoint {
  QString label;
  double us = 0;
  double tflops = 0;
};
QVector<MeasuredPoint> measuredPoints(const QVector<RunEntry>& runs, const QString& scheduleHash,
                                      const QString& target, double flops);

/// A calibration proposal written from selected runs, or the reason it was refused.
struct CalibrationProposal {
  QString refusal; ///< empty on success
  QString folder;  ///< the proposal folder written
  QString target;
  int measurements = 0;
  double spearmanBefore = 0, spearmanAfter = 0, regretBefore = 0, regretAfter = 0;
  double rmsBefore = 0, rmsAfter = 0;
  bool ok() const { return refusal.isEmpty(); }
};

/// Fits the cost model of one target to the selected runs' medians and writes a proposal
/// folder (kind "calibration": proposal.json with the runs as evidence, calibration/<target>.json)
/// under `root`, for the proposal flow (evaluate, review, approve; docs/proposals.md). Refused
/// (nothing written) when the selection has no correct timed GPU record, fewer than two, records
/// of several targets, a kernel that no longer reads, checks or has the record's schedule hash,
/// or a fit that does not explain the measurements.
CalibrationProposal writeCalibrationProposal(const driver::Compiler& compiler,
                                             const QVector<RunEntry>& selected, const QString& root,
                                             const QString& author);

} // namespace cake::views
