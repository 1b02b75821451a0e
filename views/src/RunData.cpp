// Run on CPU: the contract lookup shared with `cake run --device cpu`, the job body, the
// findings rows of a verdict and its status line.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/RunData.h"

#include "cake/Driver/Manifest.h"
#include "cake/views/HeatMap.h"

#include <QFileInfo>
#include <QStringList>

namespace cake::views {

namespace {

QString outputSummary(const interp::OutputVerdict& o) {
  qint64 elements = 1;
  for (std::int64_t d : o.shape)
    elements *= d;
  return QStringLiteral("%1: max abs error %2, max rel error %3, %4 of %5 wrong")
      .arg(QString::fromStdString(o.name), errorText(o.maxAbsError), errorText(o.maxRelError))
      .arg(o.mismatches)
      .arg(elements);
}

/// The first wrong element's writer over every output (the verdict row's location).
const interp::WrittenBy* firstWriter(const interp::RunResult& r) {
  for (const interp::OutputVerdict& o : r.outputs)
    if (o.firstMismatch && o.firstMismatch->writtenBy.known)
      return &o.firstMismatch->writtenBy;
  return nullptr;
}

} // namespace

QString findRunWorkload(const QString& corpus, const QString& kernelPath, QString* id,
                        QString* error) {
  std::string caseId, why;
  std::string path =
      driver::findCaseWorkload(corpus.toStdString(), kernelPath.toStdString(), caseId, why);
  if (id)
    *id = QString::fromStdString(caseId);
  if (error) {
    // The CLI's advice, in the workbench's terms.
    *error = QString::fromStdString(why);
    error->replace(QStringLiteral("give --workload FILE"),
                   QStringLiteral("choose one with Run > Choose Workload Contract…"));
  }
  return QString::fromStdString(path);
}

RunSnapshotPtr runKernelOnCpu(const driver::Compiler& compiler, const QString& path,
                              const QString& text, const QString& workload,
                              const QString& workloadId, const std::atomic<bool>& cancel,
                              const std::function<void(double)>& progress) {
  auto snap = std::make_shared<RunSnapshot>();
  snap->path = path;
  snap->text = text;
  snap->workload = workload;
  snap->workloadId = workloadId;
  interp::RunOptions options; // small shapes, the contract's seed, three interleavings
  options.cancel = &cancel;
  options.progress = progress;
  snap->result = std::make_shared<interp::RunResult>(interp::runOnCpu(
      compiler, path.toStdString(), text.toStdString(), workload.toStdString(), options));
  return snap;
}

std::vector<FindingRow> runFindingRows(const RunSnapshot& run) {
  std::vector<FindingRow> rows;
  FindingRow verdict;
  verdict.code = QStringLiteral("cpu-run");
  verdict.family = QString::fromUtf8(toString(Family::DataConsistency).data());
  const interp::RunResult* r = run.result.get();
  if (!r) {
    verdict.severity = Severity::Report;
    verdict.message = QStringLiteral("CPU run: not run: %1").arg(run.error);
    rows.push_back(std::move(verdict));
    return rows;
  }
  if (!r->ran) {
    verdict.severity = Severity::Report;
    verdict.message = r->cancelled ? QStringLiteral("CPU run: cancelled")
                                   : QStringLiteral("CPU run: not run (%1 finding%2 below)")
                                         .arg(r->findings.size())
                                         .arg(r->findings.size() == 1 ? "" : "s");
  } else {
    QStringList outputs;
    for (const interp::OutputVerdict& o : r->outputs)
      outputs << outputSummary(o);
    verdict.severity = r->correct ? Severity::Hint : Severity::Blocking;
    verdict.message =
        QStringLiteral("CPU run (%1, small shapes): %2; %3 (%4 interleavings, %5 s)")
            .arg(run.workloadId.isEmpty() ? QFileInfo(run.workload).fileName() : run.workloadId,
                 r->correct ? QStringLiteral("correct") : QStringLiteral("INCORRECT"),
                 outputs.join(QStringLiteral("; ")))
            .arg(r->interleavings)
            .arg(r->wallSeconds, 0, 'f', 2);
    if (const interp::WrittenBy* w = firstWriter(*r); w && !r->correct) {
      verdict.path = run.path;
      verdict.line = int(w->line);
      verdict.column = int(w->column);
      verdict.endLine = verdict.line;
      verdict.endColumn = verdict.column;
    }
  }
  rows.push_back(std::move(verdict));
  if (r->kernel.sources)
    for (const Diagnostic& d : r->findings)
      rows.push_back(findingRow(d, *r->kernel.sources));
  return rows;
}

QString runStatusText(const RunSnapshot& run) {
  const interp::RunResult* r = run.result.get();
  if (!r)
    return QStringLiteral("CPU run: not run: %1").arg(run.error);
  if (r->cancelled)
    return QStringLiteral("CPU run: cancelled");
  if (!r->ran)
    return QStringLiteral("CPU run: not run (see findings)");
  if (r->correct)
    return QStringLiteral("CPU run: correct (%1 output%2, %3 s)")
        .arg(r->outputs.size())
        .arg(r->outputs.size() == 1 ? "" : "s")
        .arg(r->wallSeconds, 0, 'f', 2);
  QStringList wrong;
  for (const interp::OutputVerdict& o : r->outputs)
    if (o.mismatches)
      wrong << QStringLiteral("%1 %2 wrong").arg(QString::fromStdString(o.name)).arg(o.mismatches);
  QString text = QStringLiteral("CPU run: INCORRECT: %1")
                     .arg(wrong.isEmpty() ? QStringLiteral("the interleavings disagree")
                                          : wrong.join(QStringLiteral(", ")));
  if (const interp::WrittenBy* w = firstWriter(*r))
    text += QStringLiteral(", first written at line %1 (%2)")
                .arg(w->line)
                .arg(QString::fromStdString(w->op));
  return text;
}

} // namespace cake::views
