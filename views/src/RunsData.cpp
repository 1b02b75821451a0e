// The Runs dock's data: store rows → entries, the predicted-vs-measured scatter and its ranking
// quality, measured roofline points, and calibration proposals from timed runs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/RunsData.h"

#include "cake/Cost/Calibrate.h"
#include "cake/Cost/CostModel.h"
#include "cake/Driver/Compiler.h"
#include "cake/IR/Printer.h"
#include "cake/Support/Sha256.h"
#include "cake/Workspace/Workspace.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSaveFile>
#include <algorithm>
#include <memory>

namespace cake::views {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// The one record of each kernel, schedule and device that counts: the newest.
QVector<const RunEntry*> newestPerKernel(const QVector<RunEntry>& runs,
                                         bool (*keep)(const RunEntry&)) {
  QMap<QString, const RunEntry*> newest;
  for (const RunEntry& r : runs) {
    if (!keep(r))
      continue;
    QString key = r.kernel + '\n' + r.scheduleHash + '\n' + r.deviceName;
    auto it = newest.find(key);
    if (it == newest.end() || (*it)->id < r.id)
      newest[key] = &r;
  }
  QVector<const RunEntry*> out(newest.begin(), newest.end());
  std::sort(out.begin(), out.end(),
            [](const RunEntry* a, const RunEntry* b) { return a->id < b->id; });
  return out;
}

bool timedCorrect(const RunEntry& r) {
  return r.timed && r.correct.value_or(false);
}

bool scatterPoint(const RunEntry& r) {
  return timedCorrect(r) && r.predictedUs && *r.predictedUs > 0;
}

} // namespace

std::optional<double> RunEntry::deltaVsBaseline() const {
  if (!timed || !baselineUs || *baselineUs <= 0)
    return std::nullopt;
  return (medianUs - *baselineUs) / *baselineUs;
}

RunEntry runEntry(const ws::RunRow& row) {
  RunEntry e;
  e.id = row.id;
  e.kernel = qs(row.kernel);
  e.sourcePath = qs(row.sourcePath);
  e.target = qs(row.target);
  e.executor = qs(row.executor);
  e.workload = qs(row.workload);
  e.createdAt = qs(row.createdAt);
  e.scheduleHash = qs(row.scheduleHash);
  e.deviceName = qs(row.device);
  e.correct = row.correct;
  std::string error;
  std::optional<run::RunRecord> rec = run::parseRecord(row.record, error);
  if (!rec) {
    e.recordError = qs(error);
    e.status = QStringLiteral("bad record");
    e.details = e.recordError;
    return e;
  }
  e.deviceKind = qs(rec->deviceKind);
  // The record is the source of truth for what ran; the row's columns only select it.
  e.correct = rec->correct;
  QStringList details;
  for (const run::RunError& err : rec->errors)
    details << QStringLiteral("error[%1]: %2").arg(qs(err.code), qs(err.message));
  for (const std::string& w : rec->warnings)
    details << QStringLiteral("warning: %1").arg(qs(w));
  e.details = details.join('\n');
  e.status = !rec->errors.empty() ? qs(rec->errors.front().code)
             : !rec->correct      ? QStringLiteral("unchecked")
             : *rec->correct      ? QStringLiteral("correct")
                                  : QStringLiteral("INCORRECT");
  // Only a GPU record's samples are kernel time; a CPU record never has any, and any it might
  // claim are not shown as speed.
  if (rec->deviceKind == "gpu" && rec->stats && rec->stats->n > 0 && rec->stats->median > 0) {
    e.timed = true;
    e.medianUs = rec->stats->median;
    e.q1Us = rec->stats->q1;
    e.q3Us = rec->stats->q3;
    e.samples = int(rec->stats->n);
  }
  e.predictedUs = rec->predictedUs;
  if (rec->baseline) {
    e.baselineName = qs(rec->baseline->name);
    e.baselineUs = rec->baseline->medianUs;
  }
  return e;
}

QVector<RunEntry> loadRuns(const QString& dir, QString* error) {
  auto ws = ws::Workspace::open(dir.toStdString(), ws::OpenMode::MustExist);
  if (!ws) {
    if (error)
      *error = qs(ws.error().text());
    return {};
  }
  auto rows = ws->runs();
  if (!rows) {
    if (error)
      *error = qs(rows.error().text());
    return {};
  }
  QVector<RunEntry> out;
  out.reserve(int(rows->size()));
  for (auto it = rows->rbegin(); it != rows->rend(); ++it)
    out << runEntry(*it);
  return out;
}

ScatterData scatterData(const QVector<RunEntry>& runs) {
  ScatterData d;
  for (const RunEntry& r : runs) {
    if (r.deviceKind == QLatin1String("cpu"))
      ++d.cpuRecords;
    else if (r.deviceKind == QLatin1String("gpu") && !r.timed)
      ++d.untimedGpuRecords;
  }
  std::vector<double> predicted, measured;
  std::vector<std::string> groups;
  for (const RunEntry* r : newestPerKernel(runs, scatterPoint)) {
    d.points << QPointF(*r->predictedUs, r->medianUs);
    d.labels << r->kernel;
    QString group = r->workload.isEmpty() ? r->kernel : r->workload;
    d.groups << group;
    predicted.push_back(*r->predictedUs);
    measured.push_back(r->medianUs);
    groups.push_back(group.toStdString());
  }
  if (d.points.isEmpty()) {
    d.note = QObject::tr("No timed GPU runs: nothing to compare with the prediction.");
    if (d.cpuRecords > 0)
      d.note += QObject::tr(" %n CPU run(s) prove correctness only (the interpreter's time is not "
                            "kernel time).",
                            nullptr, d.cpuRecords);
    if (d.untimedGpuRecords > 0)
      d.note += QObject::tr(" %n GPU run(s) without timing.", nullptr, d.untimedGpuRecords);
    return d;
  }
  if (d.points.size() >= 2)
    d.spearman = cost::spearman(predicted, measured);
  std::size_t g = 0;
  double regret = cost::top1Regret(predicted, measured, groups, &g);
  d.regretGroups = g;
  if (g > 0)
    d.regret = regret;
  if (d.points.size() < 2)
    d.note = QObject::tr("One timed kernel: a rank correlation needs two.");
  else if (g == 0)
    d.note = QObject::tr("No workload measured for two kernels: no top-1 regret.");
  return d;
}

QVector<MeasuredPoint> measuredPoints(const QVector<RunEntry>& runs, const QString& scheduleHash,
                                      const QString& target, double flops) {
  QVector<MeasuredPoint> out;
  if (scheduleHash.isEmpty() || flops <= 0)
    return out;
  for (const RunEntry& r : runs) {
    if (!timedCorrect(r) || r.scheduleHash != scheduleHash || r.target != target)
      continue;
    MeasuredPoint p;
    p.us = r.medianUs;
    p.tflops = flops / r.medianUs / 1e6;
    p.label = QStringLiteral("run %1: %2 us on %3")
                  .arg(r.id)
                  .arg(r.medianUs, 0, 'g', 4)
                  .arg(r.deviceName);
    out << p;
  }
  return out;
}

CalibrationProposal writeCalibrationProposal(const driver::Compiler& compiler,
                                             const QVector<RunEntry>& selected, const QString& root,
                                             const QString& author) {
  CalibrationProposal out;
  QVector<const RunEntry*> runs = newestPerKernel(selected, timedCorrect);
  if (runs.isEmpty()) {
    int cpu = int(std::count_if(selected.begin(), selected.end(), [](const RunEntry& r) {
      return r.deviceKind == QLatin1String("cpu");
    }));
    out.refusal = QObject::tr("The selection has no correct, timed GPU run (%1 selected, %2 on the "
                              "CPU). CPU runs prove correctness only; calibrating needs kernels "
                              "timed on a GPU.")
                      .arg(selected.size())
                      .arg(cpu);
    return out;
  }
  out.target = runs.front()->target;
  for (const RunEntry* r : runs)
    if (r->target != out.target) {
      out.refusal = QObject::tr("The selection mixes targets (%1 and %2): a calibration is for one "
                                "target; select the runs of one.")
                        .arg(out.target, r->target);
      return out;
    }
  if (runs.size() < 2) {
    out.refusal = QObject::tr("One timed kernel (%1) cannot calibrate the cost model: select the "
                              "timed runs of at least two kernels of %2.")
                      .arg(runs.front()->kernel, out.target);
    return out;
  }
  const target::Target* t = compiler.targets().find(out.target.toStdString());
  if (!t) {
    out.refusal = QObject::tr("Unknown target '%1'.").arg(out.target);
    return out;
  }
  // Each kernel is checked again from the file the run was built from: it must still be the
  // schedule that was measured (same schedule hash), or the fit would explain another kernel.
  std::vector<std::unique_ptr<driver::CheckResult>> checks;
  std::vector<cost::PreparedPtr> prepared;
  std::vector<cost::Sample> samples;
  for (const RunEntry* r : runs) {
    QFile f(r->sourcePath);
    if (!f.open(QIODevice::ReadOnly)) {
      out.refusal = QObject::tr("Run %1: cannot read its kernel '%2': %3")
                        .arg(r->id)
                        .arg(r->sourcePath, f.errorString());
      return out;
    }
    std::string text = f.read(64 << 20).toStdString();
    auto check =
        std::make_unique<driver::CheckResult>(compiler.check(r->sourcePath.toStdString(), text));
    if (!check->accepted) {
      out.refusal = QObject::tr("Run %1: kernel '%2' is now refused by the compiler.")
                        .arg(r->id)
                        .arg(r->sourcePath);
      return out;
    }
    QString hash = qs(sha256Hex(ir::print(check->module)).substr(0, 16));
    if (hash != r->scheduleHash) {
      out.refusal =
          QObject::tr("Run %1: '%2' changed since it ran (schedule hash %3, the run's %4); "
                      "run it again.")
              .arg(r->id)
              .arg(r->sourcePath, hash, r->scheduleHash);
      return out;
    }
    std::string error;
    cost::PreparedPtr p = cost::prepare(*check, error);
    if (!p) {
      out.refusal = QObject::tr("Run %1: %2").arg(r->id).arg(qs(error));
      return out;
    }
    samples.push_back(
        {p.get(), r->medianUs, (r->workload.isEmpty() ? r->kernel : r->workload).toStdString()});
    prepared.push_back(std::move(p));
    checks.push_back(std::move(check));
  }
  cost::Calibration start = cost::calibrationFor(*t);
  cost::FitResult fit = cost::fit(samples, start.params);
  if (!(fit.after.rmsLogError <= target::TargetSet::kMaxRmsLogError)) {
    out.refusal = QObject::tr("The fit does not explain these runs (rms log error %1, at most %2 "
                              "is usable).")
                      .arg(fit.after.rmsLogError)
                      .arg(target::TargetSet::kMaxRmsLogError);
    return out;
  }
  QStringList ids;
  for (const RunEntry* r : runs)
    ids << QString::number(r->id);
  std::string source = "workspace runs " + ids.join(QStringLiteral(", ")).toStdString();
  std::string calibration =
      cost::calibrationFile(out.target.toStdString(), fit, samples.size(), source);

  // A new folder per proposal: its content is its identity (docs/proposals.md).
  QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString name = QStringLiteral("calibration-%1-%2").arg(out.target, stamp);
  QDir base(root);
  for (int i = 2; base.exists(name); ++i)
    name = QStringLiteral("calibration-%1-%2-%3").arg(out.target, stamp).arg(i);
  if (!base.mkpath(name + QStringLiteral("/calibration"))) {
    out.refusal = QObject::tr("Cannot create the proposal folder in '%1'.").arg(root);
    return out;
  }
  QString folder = base.absoluteFilePath(name);
  QJsonArray evidence;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const RunEntry* r = runs[int(i)];
    QJsonObject o{{"run", r->id},
                  {"kernel", r->kernel},
                  {"schedule_hash", r->scheduleHash},
                  {"device", r->deviceName},
                  {"executor", r->executor},
                  {"median_us", r->medianUs},
                  {"q1_us", r->q1Us},
                  {"q3_us", r->q3Us},
                  {"samples", r->samples},
                  {"predicted_before_us", fit.predictedBefore[i]},
                  {"predicted_after_us", fit.predictedAfter[i]}};
    evidence.append(o);
  }
  QJsonObject quality{{"spearman_before", fit.before.spearman},
                      {"spearman_after", fit.after.spearman},
                      {"top1_regret_before", fit.before.top1Regret},
                      {"top1_regret_after", fit.after.top1Regret},
                      {"rms_log_error_before", fit.before.rmsLogError},
                      {"rms_log_error_after", fit.after.rmsLogError}};
  evidence.append(QJsonObject{{"fit", quality}});
  QString file = QStringLiteral("calibration/%1.json").arg(out.target);
  QJsonObject manifest{
      {"kind", "calibration"},
      {"title",
       QStringLiteral("Calibrate %1 from %2 timed runs").arg(out.target).arg(samples.size())},
      {"author", QJsonObject{{"kind", "human"}, {"name", author}}},
      {"motivation", QStringLiteral("Fit the cost model of %1 to the medians of workspace runs %2 "
                                    "(Runs dock, \"Calibrate from these runs\").")
                         .arg(out.target, ids.join(QStringLiteral(", ")))},
      {"evidence", evidence},
      {"files", QJsonArray{QJsonObject{{"path", file}, {"kind", "calibration"}}}}};
  auto write = [&](const QString& path, const QByteArray& bytes) {
    QSaveFile f(QDir(folder).filePath(path));
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.commit();
  };
  if (!write(file, QByteArray::fromStdString(calibration)) ||
      !write(QStringLiteral("proposal.json"), QJsonDocument(manifest).toJson())) {
    QDir(folder).removeRecursively();
    out.refusal = QObject::tr("Cannot write the proposal in '%1'.").arg(folder);
    return out;
  }
  out.folder = folder;
  out.measurements = int(samples.size());
  out.spearmanBefore = fit.before.spearman;
  out.spearmanAfter = fit.after.spearman;
  out.regretBefore = fit.before.top1Regret;
  out.regretAfter = fit.after.top1Regret;
  out.rmsBefore = fit.before.rmsLogError;
  out.rmsAfter = fit.after.rmsLogError;
  return out;
}

} // namespace cake::views
