// What the performance view shows of one cost estimate: the roofline of the kernel's target
// (tensor and CUDA-core peaks, HBM and L2 bandwidth ceilings), the kernel's predicted point with
// its bounds, measured runs when a calibration names them, the per-op and per-role time
// breakdown and the hints. Built in the background cost job; plain data plus the log-log
// coordinate math of the roofline (RooflineGeometry), tested without widgets.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Cost/CostModel.h"
#include "cake/views/CompileSession.h"

#include <QRectF>
#include <QString>
#include <QStringList>
#include <QHash>
#include <QVector>

namespace cake::views {

struct RunEntry;

/// A horizontal ceiling (a peak, FLOP/s) or a sloped one (a bandwidth, bytes/s).
struct Ceiling {
  QString label;    ///< "tensor bf16 989 TFLOP/s", "HBM 3350 GB/s"
  double value = 0; ///< TFLOP/s for peaks, GB/s for bandwidths
  bool bandwidth = false;
};

/// One point of the roofline: intensity (FLOP/byte) and throughput (TFLOP/s).
struct RooflinePoint {
  QString label;
  double intensity = 0;
  double tflops = 0;
  double loTflops = 0, hiTflops = 0; ///< bounds (equal to tflops when none)
};

/// The roofline chart in log-log coordinates.
struct RooflineGeometry {
  QVector<Ceiling> ceilings;
  /// Visible data range (FLOP/byte, TFLOP/s), chosen by fit().
  double xMin = 0.01, xMax = 1e4, yMin = 0.01, yMax = 1e4;

  /// The attainable throughput under one peak and one bandwidth: min(peak, intensity x bw).
  static double attainable(double intensity, double peakTflops, double bandwidthGbps);
  /// The intensity where a bandwidth ceiling meets a peak (FLOP/byte).
  static double ridge(double peakTflops, double bandwidthGbps);
  /// The roof at `intensity` under the highest peak and the bandwidth ceiling
  /// `bandwidthCeiling` (index into ceilings; -1: the lowest bandwidth, i.e. HBM).
  double roof(double intensity, int bandwidthCeiling = -1) const;
  /// Chooses decade-aligned ranges covering the ceilings' ridges and the points.
  void fit(const QVector<RooflinePoint>& points);
  /// Maps data coordinates into `rect` (log10 on both axes; y grows upwards in data).
  QPointF toPixel(double intensity, double tflops, const QRectF& rect) const;
  /// The inverse of toPixel.
  QPointF fromPixel(const QPointF& pixel, const QRectF& rect) const;
};

/// A bar of the time breakdown.
struct TimeBar {
  QString label;     ///< "wgmma.mma (line 74)" or "consumer (critical)"
  double us = 0;     ///< busy: pipe time of an op, issue/execute time of a role
  double waitUs = 0; ///< waiting: of the critical role caused by the op, of the role itself
  QString detail;    ///< tooltip: pipe, class, share
  int op = -1;       ///< KernelModel op index, -1 for roles
  int line = 0;
};

struct PerformanceData {
  bool ok = false;
  QString unavailable; ///< why there is no estimate (refused kernel, no timing facts)
  QString kernel, target, gpu;
  bool calibrated = false;
  double predictedUs = 0, loUs = 0, hiUs = 0;
  QString bottleneck, bottleneckResource, bottleneckDetail;
  RooflineGeometry roofline;
  RooflinePoint predicted;   ///< at the HBM intensity
  RooflinePoint predictedL2; ///< the same throughput at the L2 intensity
  bool hasFlops = false;     ///< a kernel without FLOPs has no place on the roofline
  QVector<RooflinePoint> measured;
  QString measuredNote;   ///< "no measured runs (target not calibrated)"
  QVector<TimeBar> ops;   ///< largest (busy + waiting) first, at most 8
  QVector<TimeBar> roles; ///< busy and waiting time per role (per CTA)
  QStringList hints;      ///< "line 35: pipeline 'xr' 2 stages instead of 1: -26% (…)"
  QStringList terms;      ///< "tensor 230.1 us (98%)"
  QString summary;        ///< one line for the header
};

/// The result of one cost job.
struct CostSnapshot {
  quint64 jobId = 0;
  quint64 checkJob = 0;
  CheckSnapshotPtr check;
  std::shared_ptr<const cost::Estimate> estimate; ///< null when the kernel cannot be costed
  PerformanceData data;
  QHash<int, double> shares; ///< costShares() of the estimate (empty without one)
  /// The check's timeline on the predicted time axis (null without an estimate).
  std::shared_ptr<const TimelineData> timeline;
  /// The editor gutter's per-IR-line tables (GutterMetrics.h): time share, bank-conflict ways.
  QHash<int, double> lineShares;
  QHash<int, int> lineBankWays;
  qint64 elapsedMs = 0;
};

/// Costs a check (accepted or not: a refused one gets its reason) and derives the view data.
/// Runs in the background cost job.
/// With a workspace, its timed GPU runs of this exact schedule are measured roofline points.
CostSnapshotPtr buildCostSnapshot(const driver::Compiler& compiler, const CheckSnapshotPtr& check,
                                  quint64 jobId, const QString& workspace = {});
/// Each operation's share of the predicted time (KernelModel op index → 0..1): its pipe time plus
/// the waiting of the critical role it causes, over the sum of those of all operations. The IR
/// graph draws it on the nodes.
QHash<int, double> costShares(const cost::Estimate& estimate);

/// The view data of an estimate (exposed for tests).
/// `runs`: a workspace's run records (RunsData.h); the timed GPU ones of this schedule (same
/// schedule hash and target) are added to the measured points.
PerformanceData performanceData(const CheckSnapshot& check, const cost::Estimate& estimate,
                                const target::Target* target,
                                const QVector<RunEntry>* runs = nullptr);

} // namespace cake::views
