// The lowered code of a checked kernel for the code view: PTX, LLVM IR or CUDA C++ text, its
// line mapping back to the .cake source (PTX `.loc`, LLVM `!DILocation`, CUDA `// L<n>:`
// provenance comments) and the ptxas resource report (registers, spills, shared memory,
// barriers, per-role register budget against need). Built in background jobs of the compile
// façade; plain data, the mapping tested without widgets.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/Lowering.h"
#include "cake/Lower/Toolchain.h"
#include "cake/views/CompileSession.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <memory>

namespace cake::views {

QString loweredEmitName(LoweredEmit kind); ///< "PTX", "LLVM IR", "CUDA", "SASS"

/// Which .cake line each lowered line comes from, and back.
class LoweredLineMap {
public:
  /// Parses `text` of the given kind; `sourcePath` names the .cake file (PTX `.file` entries
  /// for other files are ignored). SASS: nvdisasm -g's `//## File` comments; a location in a
  /// `.cu` file goes through the provenance comments of `cudaExport`, the CUDA export that nvcc
  /// compiled with -lineinfo (when given).
  static LoweredLineMap build(const QString& text, LoweredEmit kind, const QString& sourcePath,
                              const QString& cudaExport = {});
  /// The .cake line of lowered line `loweredLine` (1-based), 0 when it has none.
  int sourceLine(int loweredLine) const { return m_source.value(loweredLine - 1, 0); }
  /// The lowered lines (1-based, ascending) mapped to .cake line `sourceLine`.
  QVector<int> loweredLines(int sourceLine) const { return m_lowered.value(sourceLine); }
  int mappedLines() const;

private:
  QVector<int> m_source;              ///< per lowered line (0-based index)
  QHash<int, QVector<int>> m_lowered; ///< .cake line → lowered lines
};

/// What the code view's PTX filters hide (issue 17 item 7).
struct LoweredFilter {
  bool hideLoc = false;        ///< `.loc` line-info directives
  bool hideAsmMarkers = false; ///< `// begin inline asm` / `// end inline asm` comments
};
/// The lines of a lowered text a filter leaves: the text shown and, per shown line, its
/// 1-based line in the unfiltered text (ascending), so the line map still applies.
struct FilteredLines {
  QString text;
  QVector<int> original;
  /// The shown line (1-based) of unfiltered line `line`, 0 when the filter hides it.
  int shownLine(int line) const;
  /// The unfiltered line of shown line `line`, 0 when out of range.
  int originalLine(int line) const { return original.value(line - 1, 0); }
};
FilteredLines filterLowered(const QString& text, const LoweredFilter& filter);

/// The result of one lowering job.
struct LowerSnapshot {
  quint64 jobId = 0;
  quint64 checkJob = 0;
  CheckSnapshotPtr check;
  LoweredEmit kind = LoweredEmit::Ptx;
  QString target;
  bool ok = false;
  QString text;
  LoweredLineMap lines;
  /// Why there is no text: refused kernel, lowering findings, no LLVM path for the target.
  QString unavailable;
  /// The LLVM path cannot emit this target but CUDA export can (sm_100a).
  bool cudaOffered = false;
  std::shared_ptr<const lower::LoweredKernel> lowered; ///< null when lowering failed
  qint64 elapsedMs = 0;
  /// SASS: the compile that made the cubin (ptxas -v on the PTX, or nvcc --resource-usage on
  /// the CUDA export beyond the LLVM path), also when there is no disassembler.
  QString compileTool;
  bool compiled = false;
  QVector<lower::PtxasEntry> compileEntries;
  QStringList compileFindings; ///< the compile's report judged against the IR
  bool toolMissing = false;    ///< no nvdisasm: `unavailable` says what to install
  /// PTX / SASS instructions per IR line (the editor gutter's column, GutterMetrics.h).
  QHash<int, int> instructions;
};

/// The result of one ptxas job.
struct PtxasSnapshot {
  quint64 jobId = 0;
  quint64 lowerJob = 0;
  quint64 checkJob = 0;
  bool toolFound = false; ///< the CUDA toolkit's ptxas exists
  bool ran = false, ok = false, timedOut = false;
  QString tool;                       ///< command line
  QString message;                    ///< one line: what happened (or why nothing ran)
  QVector<lower::PtxasEntry> entries; ///< per entry, as ptxas -v reported it
  qint64 derivedSmemBytes = 0;        ///< dynamic shared memory the launch requests
  QVector<lower::RoleNeed> roles;     ///< register budgets against the roles' code alone
  QStringList findings;               ///< judged contradictions with the IR ("code: message")
  QStringList warnings;
  QString log;
  double seconds = 0;
  qint64 elapsedMs = 0;
};

/// Lowers `check` to `emit` (background lowering job); SASS runs external tools, killed when
/// `cancel` becomes true or after `timeoutSeconds`.
LowerSnapshotPtr buildLowerSnapshot(const driver::Compiler& compiler, const CheckSnapshotPtr& check,
                                    LoweredEmit kind, quint64 jobId,
                                    const std::atomic<bool>* cancel = nullptr,
                                    double timeoutSeconds = 60.0);
/// Runs ptxas on the PTX of `lowered` and on each budgeted role alone (background ptxas job);
/// the tool is killed when `cancel` becomes true or after `timeoutSeconds`.
PtxasSnapshotPtr buildPtxasSnapshot(const LowerSnapshotPtr& lowered, quint64 jobId,
                                    double timeoutSeconds, const std::atomic<bool>& cancel);

} // namespace cake::views
