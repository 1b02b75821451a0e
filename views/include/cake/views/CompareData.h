// What the Compare view and the baseline show: the semantic diff of two kernels (cake::diff)
// with its side-by-side rows of the IR and PTX line diffs, diff marks of the graph's nodes and
// edges on both sides, and the deltas the status bar and performance view print. Built off the
// GUI thread by the compile façade's compare and baseline jobs.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Diff/Diff.h"
#include "cake/views/CompileSession.h"
#include "cake/views/GraphDescription.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>
#include <memory>

namespace cake::views {

enum class DiffMark : quint8 { None, Added, Removed, Changed };

/// One row of a side-by-side line diff: a line on the left, the right or both.
struct DiffRow {
  enum class Kind : quint8 { Common, Removed, Added, Changed };
  Kind kind = Kind::Common;
  int left = 0, right = 0; ///< 1-based line numbers; 0 for a filler
  QString leftText, rightText;
};

/// Pairs runs of removed and added lines into rows (a removed line next to the added line that
/// replaced it; fillers where one side has more).
QVector<DiffRow> sideBySide(const diff::LineDiff& d);

/// The key of an edge across the two graphs of a comparison: its end nodes' ids and kind.
QString edgeDiffKey(const GraphDescription& graph, const GraphEdge& edge);

/// Diff marks of one side's graph.
struct GraphMarks {
  QHash<int, DiffMark> ops;              ///< KernelModel op index → mark
  QSet<QString> edges;                   ///< edgeDiffKey() of edges present on this side only
  DiffMark edgeMark = DiffMark::Changed; ///< Removed on the older side, Added on the newer
};

/// `text` with a cost-model hint's edits applied (byte ranges of the text it was checked
/// from); empty when an edit lies outside the text or edits overlap.
QString withEdits(const QString& text, const std::vector<cost::TextEdit>& edits);

/// One comparison (Compare view).
struct CompareSnapshot {
  quint64 jobId = 0;
  CheckSnapshotPtr before, after; ///< with view data (graphs)
  std::shared_ptr<const diff::KernelDiff> diff;
  QVector<DiffRow> irRows, ptxRows;
  GraphMarks marksBefore, marksAfter; ///< removed/changed on the left, added/changed right
  qint64 elapsedMs = 0;
};
using CompareSnapshotPtr = std::shared_ptr<const CompareSnapshot>;

/// Checks, costs and lowers both kernels and compares them (the compare job's body).
CompareSnapshotPtr buildCompareSnapshot(const driver::Compiler& compiler, const QString& pathBefore,
                                        const QString& textBefore, const QString& pathAfter,
                                        const QString& textAfter, quint64 jobId);

/// The pinned baseline: its assessment, kept for the deltas of every later edit.
struct Baseline {
  QString path;
  QString text;
  std::shared_ptr<const diff::Assessment> assessment;
};
using BaselinePtr = std::shared_ptr<const Baseline>;

/// The current kernel against the pinned baseline (status bar, performance view).
struct BaselineDelta {
  quint64 checkJob = 0; ///< the check of the current kernel it belongs to
  QString baselinePath;
  std::shared_ptr<const diff::KernelDiff> diff;
  int findingsAppeared = 0, findingsDisappeared = 0;
  /// "Δ +1.23 µs (+4.5%) · findings +1 −0 · smem −16384 B · regs producer 40→56"
  QString summary() const;
};
using BaselineDeltaPtr = std::shared_ptr<const BaselineDelta>;

/// Assesses a baseline kernel (no PTX: the deltas are about time, findings and resources).
BaselinePtr buildBaseline(const driver::Compiler& compiler, const QString& path,
                          const QString& text);
/// The delta of `text` against `baseline`.
BaselineDeltaPtr buildBaselineDelta(const driver::Compiler& compiler, const BaselinePtr& baseline,
                                    const QString& path, const QString& text, quint64 checkJob);

} // namespace cake::views

Q_DECLARE_METATYPE(cake::views::CompareSnapshotPtr)
Q_DECLARE_METATYPE(cake::views::BaselinePtr)
Q_DECLARE_METATYPE(cake::views::BaselineDeltaPtr)
