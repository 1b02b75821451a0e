// The workbench's Run on CPU: the run job's inputs and result (the interpreter's verdict on the
// editor's text), its rows for the findings panel and its status-bar line. Plain data and
// functions; the job runs through CompileSession::runTaskWithProgress.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Interp/Run.h"
#include "cake/views/FindingsModel.h"

#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace cake::views {

/// One CPU run of a kernel text, shared read-only with the findings panel and the heat map.
struct RunSnapshot {
  quint64 jobId = 0;
  QString path;       ///< the kernel's path as the check names it (findings point into it)
  QString text;       ///< the text that was run: results show only while the editor holds it
  QString workload;   ///< the contract used (empty: none found)
  QString workloadId; ///< the corpus case or contract name
  QString error;      ///< why it did not run (no contract); empty when `result` is set
  std::shared_ptr<const interp::RunResult> result;
};
using RunSnapshotPtr = std::shared_ptr<const RunSnapshot>;

/// The contract of a kernel file as `cake run --device cpu` finds it: the corpus manifest case
/// (manifest or corpus folder `corpus`) whose kernel is that file (driver::findCaseWorkload).
/// Empty with `error` set when there is none.
QString findRunWorkload(const QString& corpus, const QString& kernelPath, QString* id,
                        QString* error);

/// Runs `text` on the interpreter at small shapes against `workload` (the job's body, on a
/// worker thread): progress from the interpreter, stopped between CTAs by `cancel`.
RunSnapshotPtr runKernelOnCpu(const driver::Compiler& compiler, const QString& path,
                              const QString& text, const QString& workload,
                              const QString& workloadId, const std::atomic<bool>& cancel,
                              const std::function<void(double)>& progress);

/// The findings panel's rows of a run: first the verdict (correct / incorrect with each
/// output's max abs / rel error and mismatches; located at the line that wrote the first wrong
/// element), then the run's findings (each wrong output at its writer's line, timing
/// dependence, missing CPU semantics, contract mismatches).
std::vector<FindingRow> runFindingRows(const RunSnapshot& run);

/// One line for the status bar.
QString runStatusText(const RunSnapshot& run);

} // namespace cake::views
