// The performance view's data: cost estimate → roofline ceilings and points, measured runs from
// the target's calibration, time breakdown bars and hints; and the roofline's log-log math.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/PerformanceData.h"

#include "cake/IR/Printer.h"
#include "cake/Support/Sha256.h"
#include "cake/views/GutterMetrics.h"
#include "cake/views/RunsData.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>

namespace cake::views {

// ------------------------------------------------------------------------ roofline geometry

double RooflineGeometry::attainable(double intensity, double peakTflops, double bandwidthGbps) {
  // GB/s x FLOP/byte = GFLOP/s; /1000 → TFLOP/s.
  return std::min(peakTflops, intensity * bandwidthGbps / 1000.0);
}

double RooflineGeometry::ridge(double peakTflops, double bandwidthGbps) {
  return bandwidthGbps > 0 ? peakTflops * 1000.0 / bandwidthGbps : 0.0;
}

double RooflineGeometry::roof(double intensity, int bandwidthCeiling) const {
  double peak = 0, bw = 0;
  for (const Ceiling& c : ceilings)
    if (!c.bandwidth)
      peak = std::max(peak, c.value);
  if (bandwidthCeiling >= 0 && bandwidthCeiling < ceilings.size() &&
      ceilings[bandwidthCeiling].bandwidth) {
    bw = ceilings[bandwidthCeiling].value;
  } else {
    for (const Ceiling& c : ceilings)
      if (c.bandwidth && (bw == 0 || c.value < bw))
        bw = c.value;
  }
  if (bw <= 0)
    return peak;
  return attainable(intensity, peak, bw);
}

void RooflineGeometry::fit(const QVector<RooflinePoint>& points) {
  double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
  auto takeX = [&](double x) {
    if (x > 0 && std::isfinite(x)) {
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
    }
  };
  auto takeY = [&](double y) {
    if (y > 0 && std::isfinite(y)) {
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
    }
  };
  double peakMin = 1e300;
  for (const Ceiling& c : ceilings)
    if (!c.bandwidth) {
      takeY(c.value);
      peakMin = std::min(peakMin, c.value);
    }
  for (const Ceiling& p : ceilings)
    if (!p.bandwidth)
      for (const Ceiling& b : ceilings)
        if (b.bandwidth)
          takeX(ridge(p.value, b.value));
  for (const RooflinePoint& p : points) {
    takeX(p.intensity);
    takeY(p.tflops);
    takeY(p.loTflops);
    takeY(p.hiTflops);
  }
  if (xhi <= 0) {
    xlo = 0.1;
    xhi = 1000;
  }
  if (yhi <= 0) {
    ylo = 0.1;
    yhi = 1000;
  }
  // A decade of margin on the left (the bandwidth slopes are visible there), half of one to
  // the right and above (room for labels), decade-aligned; the bottom reaches the lowest roof
  // at the left edge so every ceiling enters the plot.
  xMin = std::pow(10.0, std::floor(std::log10(xlo)) - 1);
  xMax = std::pow(10.0, std::ceil(std::log10(xhi) + 0.5));
  double lowest = ylo;
  for (const Ceiling& c : ceilings)
    if (c.bandwidth)
      lowest = std::min(lowest, attainable(xMin, peakMin, c.value));
  yMin = std::pow(10.0, std::floor(std::log10(lowest)));
  yMax = std::pow(10.0, std::ceil(std::log10(yhi) + 0.5));
}

QPointF RooflineGeometry::toPixel(double intensity, double tflops, const QRectF& r) const {
  double fx = (std::log10(intensity) - std::log10(xMin)) / (std::log10(xMax) - std::log10(xMin));
  double fy = (std::log10(tflops) - std::log10(yMin)) / (std::log10(yMax) - std::log10(yMin));
  return {r.left() + fx * r.width(), r.bottom() - fy * r.height()};
}

QPointF RooflineGeometry::fromPixel(const QPointF& p, const QRectF& r) const {
  double fx = (p.x() - r.left()) / r.width();
  double fy = (r.bottom() - p.y()) / r.height();
  double lx = std::log10(xMin) + fx * (std::log10(xMax) - std::log10(xMin));
  double ly = std::log10(yMin) + fy * (std::log10(yMax) - std::log10(yMin));
  return {std::pow(10.0, lx), std::pow(10.0, ly)};
}

// ------------------------------------------------------------------------------ view data

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

int lineOf(const driver::CheckResult& r, SourceRange range) {
  if (!r.sources || !range.valid() || !r.sources->contains(range.file))
    return 0;
  return int(r.sources->lineColumn(range.file, range.begin).line);
}

QString number(double v) {
  if (v >= 100)
    return QString::number(v, 'f', 0);
  if (v >= 10)
    return QString::number(v, 'f', 1);
  return QString::number(v, 'g', 3);
}

/// Runs measured for exactly this kernel (no rewrites) in the measurement file the target's
/// calibration was fitted to; nothing when there is no calibration or the file is gone.
void measuredRuns(const CheckSnapshot& check, const cost::Estimate& e, const target::Target* t,
                  PerformanceData& d) {
  if (!t || !t->calibrated()) {
    d.measuredNote = QStringLiteral("no measured runs (target %1 not calibrated)").arg(d.target);
    return;
  }
  const json::Value* fit = t->calibration.get("fit");
  const json::Value* source = fit ? fit->get("source") : nullptr;
  if (!source || !source->isString()) {
    d.measuredNote = QStringLiteral("no measured runs (the calibration names no measurement file)");
    return;
  }
  QDir calibrationDir = QFileInfo(qs(t->calibrationPath)).absoluteDir();
  QString file = calibrationDir.absoluteFilePath(qs(source->string));
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) {
    d.measuredNote = QStringLiteral("no measured runs (measurement file %1 not found)").arg(file);
    return;
  }
  QString kernel = QFileInfo(check.path).canonicalFilePath();
  QDir base = QFileInfo(file).absoluteDir();
  const QJsonArray runs =
      QJsonDocument::fromJson(f.readAll()).object().value("measurements").toArray();
  for (const QJsonValue& v : runs) {
    QJsonObject m = v.toObject();
    if (m.contains("consts") || m.contains("stages") || m.contains("schedule"))
      continue; // a rewritten variant, not this text
    if (QFileInfo(base.absoluteFilePath(m.value("kernel").toString())).canonicalFilePath() !=
        kernel)
      continue;
    double us = m.value("measured_us").toDouble();
    if (us <= 0)
      continue;
    RooflinePoint p;
    p.label = QStringLiteral("measured %1 us").arg(number(us));
    p.intensity = e.roofline.intensity;
    p.tflops = p.loTflops = p.hiTflops = e.roofline.flops / us / 1e6;
    d.measured << p;
  }
  d.measuredNote =
      d.measured.isEmpty()
          ? QStringLiteral("no measured runs of this kernel in %1").arg(QFileInfo(file).fileName())
          : QStringLiteral("%1 measured run(s) from %2")
                .arg(d.measured.size())
                .arg(QFileInfo(file).fileName());
}

} // namespace

QHash<int, double> costShares(const cost::Estimate& estimate) {
  // The cost model's one per-op time figure (OpCost::timeShare), as `cake cost` prints it.
  QHash<int, double> shares;
  for (const cost::OpCost& o : estimate.perOp)
    if (o.timeShare > 0)
      shares[int(o.op)] += o.timeShare;
  return shares;
}

PerformanceData performanceData(const CheckSnapshot& check, const cost::Estimate& e,
                                const target::Target* t, const QVector<RunEntry>* runs) {
  PerformanceData d;
  d.kernel = qs(e.kernel);
  d.target = qs(e.target);
  d.gpu = t ? qs(t->gpu) : QString();
  if (!e.ok) {
    d.unavailable = qs(e.error);
    return d;
  }
  d.ok = true;
  d.calibrated = e.calibrated;
  d.predictedUs = e.predictedUs;
  d.loUs = e.loUs;
  d.hiUs = e.hiUs;
  d.bottleneck = qs(e.bottleneck);
  d.bottleneckResource = qs(e.bottleneckResource);
  d.bottleneckDetail = qs(e.bottleneckDetail);
  const driver::CheckResult& r = check.result;

  // Ceilings: the tensor peak of the dominant MMA type, the CUDA-core (FP32) peak, HBM and L2.
  RooflineGeometry& g = d.roofline;
  double fp32 = t ? t->machineValue("fp32_tflops") : 0;
  double hbm = t ? t->machineValue("hbm_bandwidth_gbps") : e.roofline.peakHbmGbps;
  double l2 = t ? t->machineValue("l2_bandwidth_gbps") : 0;
  if (e.roofline.flops > 0 && e.roofline.tensorFlops > 0 && e.roofline.peakDtype != "f32")
    g.ceilings << Ceiling{QStringLiteral("tensor %1 %2 TFLOP/s")
                              .arg(qs(e.roofline.peakDtype), number(e.roofline.peakTflops)),
                          e.roofline.peakTflops, false};
  else if (t) {
    // A kernel without MMAs still sees the tensor roof of its target: the bf16 one.
    auto it = t->tensorTflops.find("bf16");
    if (it != t->tensorTflops.end())
      g.ceilings << Ceiling{QStringLiteral("tensor bf16 %1 TFLOP/s").arg(number(it->second.value)),
                            it->second.value, false};
  }
  if (fp32 > 0)
    g.ceilings << Ceiling{QStringLiteral("FP32 (non-tensor) %1 TFLOP/s").arg(number(fp32)), fp32,
                          false};
  if (l2 > 0)
    g.ceilings << Ceiling{QStringLiteral("L2 %1 GB/s").arg(number(l2)), l2, true};
  if (hbm > 0)
    g.ceilings << Ceiling{QStringLiteral("HBM %1 GB/s").arg(number(hbm)), hbm, true};

  d.hasFlops = e.roofline.flops > 0 && e.roofline.intensity > 0;
  QVector<RooflinePoint> points;
  if (d.hasFlops) {
    d.predicted.label = QStringLiteral("%1: %2 us predicted").arg(d.kernel, number(e.predictedUs));
    d.predicted.intensity = e.roofline.intensity;
    d.predicted.tflops = e.roofline.achievedTflops;
    d.predicted.loTflops = e.hiUs > 0 ? e.roofline.flops / e.hiUs / 1e6 : d.predicted.tflops;
    d.predicted.hiTflops = e.loUs > 0 ? e.roofline.flops / e.loUs / 1e6 : d.predicted.tflops;
    points << d.predicted;
    if (e.roofline.l2Bytes > 0) {
      d.predictedL2 = d.predicted;
      d.predictedL2.label = QStringLiteral("at L2 intensity");
      d.predictedL2.intensity = e.roofline.flops / e.roofline.l2Bytes;
      points << d.predictedL2;
    }
  }
  measuredRuns(check, e, t, d);
  if (runs && d.hasFlops) {
    // Timed GPU runs of exactly this schedule (the canonical text's hash, as `cake run` records
    // it); CPU runs carry no timing and never appear here.
    QString hash = qs(sha256Hex(ir::print(check.result.module)).substr(0, 16));
    const QVector<MeasuredPoint> stored = measuredPoints(*runs, hash, d.target, e.roofline.flops);
    for (const MeasuredPoint& m : stored) {
      RooflinePoint p;
      p.label = m.label;
      p.intensity = e.roofline.intensity;
      p.tflops = p.loTflops = p.hiTflops = m.tflops;
      d.measured << p;
    }
    if (!stored.isEmpty())
      d.measuredNote = QStringLiteral("%1 measured run(s) in the workspace; %2")
                           .arg(stored.size())
                           .arg(d.measuredNote);
  }
  points << d.measured;
  g.fit(points);

  // Per-op breakdown: the op's share of the predicted time (OpCost::timeUs, busiest SM; the
  // bars of all ops add up to at most the kernel's time), split in the proportion of its pipe
  // time and the critical-role waiting it causes (those overlap, so their raw sum can exceed
  // the kernel's time; the tooltip gives them), largest first.
  QVector<TimeBar> ops;
  for (std::size_t i = 0; i < e.perOp.size(); ++i) {
    const cost::OpCost& o = e.perOp[i];
    double raw = o.pipeUs + o.causedUs;
    if (raw <= 0 || o.timeUs <= 0)
      continue;
    TimeBar b;
    b.op = int(o.op);
    b.line = lineOf(r, o.range);
    b.label = QStringLiteral("%1 (line %2)").arg(qs(o.primitive)).arg(b.line);
    b.us = o.timeUs * o.pipeUs / raw;
    b.waitUs = o.timeUs * o.causedUs / raw;
    bool bottleneck =
        std::find(e.bottleneckOps.begin(), e.bottleneckOps.end(), i) != e.bottleneckOps.end();
    if (bottleneck)
      b.label += QStringLiteral(" ★");
    b.detail =
        QStringLiteral("%1 on the %2 pipe: %3% of the predicted time (%4 us, busiest SM); "
                       "raw: %5 us pipe busy on the busiest SM, %6 us of critical-role waiting "
                       "caused%7")
            .arg(qs(o.costClass), qs(o.pipe))
            .arg(o.timeShare * 100, 0, 'f', 1)
            .arg(number(o.timeUs), number(o.pipeUs), number(o.causedUs),
                 bottleneck ? QStringLiteral("; behind the bottleneck: %1% of %2")
                                  .arg(o.share * 100, 0, 'f', 1)
                                  .arg(qs(e.bottleneckResource))
                            : QString());
    ops << b;
  }
  std::sort(ops.begin(), ops.end(),
            [](const TimeBar& a, const TimeBar& b) { return a.us + a.waitUs > b.us + b.waitUs; });
  if (ops.size() > 8)
    ops.resize(8);
  d.ops = ops;
  for (const cost::RoleCost& rc : e.perRole) {
    TimeBar b;
    b.label = QStringLiteral("%1%2").arg(qs(rc.name),
                                         rc.critical ? QStringLiteral(" (critical)") : QString());
    b.us = rc.busyUs;
    b.waitUs = rc.stallUs;
    QStringList causes;
    for (const auto& [cause, us] : rc.stalls)
      causes << QStringLiteral("%1 %2 us").arg(qs(cause), number(us));
    b.detail =
        QStringLiteral("%1 warps, per CTA: %2 us busy, %3 us waiting%4")
            .arg(rc.warps)
            .arg(number(rc.busyUs), number(rc.stallUs),
                 causes.isEmpty() ? QString()
                                  : QStringLiteral(" (") + causes.join(QStringLiteral(", ")) + ")");
    d.roles << b;
  }
  for (const cost::Term& term : e.terms)
    d.terms << QStringLiteral("%1 %2 us (%3%)")
                   .arg(qs(term.resource), number(term.us))
                   .arg(term.utilisation * 100, 0, 'f', 0);
  for (const cost::Hint& h : e.hints)
    // The model's message names the decision, the mechanism and the predicted gain.
    d.hints << QStringLiteral("line %1: %2").arg(lineOf(r, h.range)).arg(qs(h.message));
  d.summary =
      QStringLiteral("%1 on %2: %3 us predicted (%4 – %5 us), %6 (%7)%8")
          .arg(d.kernel,
               d.gpu.isEmpty() ? d.target : QStringLiteral("%1 (%2)").arg(d.target, d.gpu),
               number(e.predictedUs), number(e.loUs), number(e.hiUs), d.bottleneck,
               d.bottleneckResource,
               e.calibrated ? QString() : QStringLiteral(" — not calibrated (datasheet peaks)"));
  return d;
}

CostSnapshotPtr buildCostSnapshot(const driver::Compiler& compiler, const CheckSnapshotPtr& check,
                                  quint64 jobId, const QString& workspace) {
  QElapsedTimer timer;
  timer.start();
  auto s = std::make_shared<CostSnapshot>();
  s->jobId = jobId;
  s->checkJob = check->jobId;
  s->check = check;
  const driver::CheckResult& r = check->result;
  if (!r.accepted) {
    std::size_t blocking = 0;
    for (const Diagnostic& d : r.diagnostics)
      blocking += d.severity == Severity::Blocking;
    s->data.unavailable =
        QStringLiteral("no cost estimate: the kernel is refused (%1 blocking finding(s)); "
                       "costing an illegal kernel is meaningless")
            .arg(blocking);
  } else {
    auto e = std::make_shared<cost::Estimate>(cost::estimate(compiler, r));
    QVector<RunEntry> runs;
    if (!workspace.isEmpty())
      runs = loadRuns(workspace, nullptr); // an unreadable store only means no stored points
    s->data = performanceData(*check, *e, r.model.target, workspace.isEmpty() ? nullptr : &runs);
    s->shares = costShares(*e);
    if (e->ok && check->views)
      s->timeline = std::make_shared<const TimelineData>(timelineInTime(
          check->views->timeline, e->schedule, r.verification.trace.size()));
    s->lineShares = lineTimeShares(*check, s->shares);
    if (!e->ok && s->data.unavailable.isEmpty())
      s->data.unavailable = QStringLiteral("no cost estimate");
    else if (!e->ok)
      s->data.unavailable = QStringLiteral("no cost estimate: ") + s->data.unavailable;
    s->estimate = std::move(e);
  }
  // The gutter's bank column: the verifier's facts, also for a kernel that is not costed.
  s->lineBankWays = lineBankWays(*check);
  s->elapsedMs = timer.elapsed();
  return s;
}

} // namespace cake::views
