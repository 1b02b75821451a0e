// Everything the views show of one check result, derived once in the background job: the
// operations with their source spans and findings, the IR graph description, the memory map and
// the timeline. Immutable and shared with every view through the snapshot.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/SourceManager.h"
#include "cake/views/GraphDescription.h"
#include "cake/views/MemoryMap.h"
#include "cake/views/TimelineData.h"

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>

namespace cake::views {

/// A 1-based source span (columns exclusive at the end, as in the CLI's JSON).
struct SourceSpan {
  int line = 0, column = 0, endLine = 0, endColumn = 0;
  bool valid() const { return line > 0; }
};

struct OpView {
  QString name;     ///< primitive name
  QString operands; ///< the text after the name, as written
  SourceSpan span;
  QVector<int> roles;       ///< indices of the roles that execute it
  QVector<int> loops;       ///< enclosing loops, outermost first (indices into KernelModel::loops)
  int severity = -1;        ///< worst finding located on it: int(Severity), -1 when none
  QVector<int> findings;    ///< indices into the check result's diagnostics
  QVector<int> smemBuffers; ///< shared-memory buffers it reads or writes
};

struct SymbolIndex; // SymbolIndex.h (go-to-definition)

struct ViewData {
  QStringList roles;
  QStringList roleDetail; ///< "warps 0..4, 40 regs"
  QStringList loopLabels; ///< per KernelModel loop: "for k in 0..64 pipeline=ring"
  QVector<OpView> ops;
  QHash<int, int> opAtLine;     ///< source line → first op on it
  QHash<int, int> bufferAtLine; ///< declaration line → buffer index
  QVector<int> findingOp;       ///< per diagnostic: the op it is located on, or -1
  QVector<int> findingBuffer;   ///< per diagnostic: the buffer declared on its line, or -1
  QStringList bufferNames;
  QVector<SourceSpan> bufferSpans; ///< declaration of each buffer
  GraphDescription graph;
  MemoryMap memory;
  TimelineData timeline;
  /// Kernels with a thread-block cluster: every CTA x role of one cluster (ClusterTimeline.h);
  /// no lanes otherwise.
  TimelineData clusterTimeline;
  std::shared_ptr<const SymbolIndex> symbols; ///< names and their definitions
  qint64 buildMs = 0;
};
using ViewDataPtr = std::shared_ptr<const ViewData>;

/// The colour of a finding severity in every view: int(Severity) (0 blocking red, 1 report
/// orange, 2 hint blue); -1 or other values are hints' blue.
QColor severityColor(int severity);

/// Derives the view data of a check result (runs in the check job, never on the GUI thread).
ViewDataPtr buildViewData(const driver::CheckResult& result);

/// The span of a source range of the checked file (empty for ranges of other files, invalid
/// ranges, or without sources).
SourceSpan spanOf(const driver::CheckResult& r, SourceRange range);

} // namespace cake::views
