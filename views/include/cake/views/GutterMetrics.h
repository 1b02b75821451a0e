// Per-IR-line metrics for the editor gutter, like the Nsight Compute source page (issue 17
// item 6): predicted time share (cost model), bank-conflict ways (the verifier's bank model),
// lowered instructions (PTX or SASS line info). The per-line tables are computed in the cost and
// lowering jobs; combining them is a cheap merge. Plain data, tested without widgets.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"
#include "cake/views/LoweredCode.h"

#include <QHash>
#include <QString>

namespace cake::views {

/// The gutter's optional columns (flags); line numbers and finding markers are always shown.
enum GutterColumn : unsigned {
  GutterTimeShare = 1u << 0,    ///< "12%": the line's share of the predicted time
  GutterBankWays = 1u << 1,     ///< "4×": worst bank-conflict ways of its shared-memory accesses
  GutterInstructions = 1u << 2, ///< "37": PTX (or SASS) instructions linked to the line
  GutterHeatStrip = 1u << 3,    ///< a strip coloured by the time share
  GutterAllColumns = 0xfu,
  /// The line numbers and finding dots: always shown, not a toggle; named by the header row.
  GutterLineNumbers = 1u << 4,
  /// On by default: the strip and the time share (the bank ways and instruction counts cost
  /// width a half-screen window does not have; View > Gutter columns turns them on).
  GutterDefaultColumns = GutterTimeShare | GutterHeatStrip,
};

/// The metrics of one IR line (absent values: share < 0, ways 0, instructions < 0).
struct LineMetric {
  double share = -1.0;
  int bankWays = 0;
  int instructions = -1;
};

/// Time share per IR line: the shares of the operations written on it, summed
/// (KernelModel op index → share, as costShares() makes them).
QHash<int, double> lineTimeShares(const CheckSnapshot& check, const QHash<int, double>& opShares);
/// Worst bank-conflict ways per IR line, from the verifier's modelled shared-memory accesses;
/// lines with no modelled access are absent, conflict-free ones are 1.
QHash<int, int> lineBankWays(const CheckSnapshot& check);
/// Instructions per IR line of a lowered text: PTX instruction lines (no directives, labels,
/// comments or braces) or SASS instruction lines, through its line map.
QHash<int, int> lineInstructions(const QString& text, LoweredEmit kind, const LoweredLineMap& map);

struct GutterMetrics {
  quint64 checkJob = 0; ///< the check the tables belong to
  QHash<int, double> shares;
  QHash<int, int> bankWays;
  QHash<int, int> instructions;
  QString instructionKind; ///< "PTX" / "SASS"; empty when no lowering has arrived
  double maxShare = 0.0;

  LineMetric at(int line) const;
  /// 0..1: the line's share over the largest line share (0 without shares).
  double heat(int line) const;
  /// The text of one column for a line ("" when it has no value).
  QString cell(int line, GutterColumn column) const;
  /// A sentence per available metric, for the gutter's tool tip.
  QString tooltip(int line) const;
  bool empty() const { return shares.isEmpty() && bankWays.isEmpty() && instructions.isEmpty(); }
};

/// The header row over the gutter: a column's short name ("time", "bank", "PTX" or "SASS",
/// "line"; "" for the heat strip, too narrow for text).
QString gutterColumnTitle(GutterColumn column, const GutterMetrics& metrics);
/// The header's tool tip for a column: what it counts, its unit and its scope.
QString gutterColumnToolTip(GutterColumn column, const GutterMetrics& metrics);

/// The gutter metrics of the newest cost estimate (time shares, bank ways) and the newest PTX
/// or SASS lowering (instructions). They may come from different checks of the same file (a
/// table is kept until its job delivers a newer one, as the views keep their last good
/// results while the user types); a lowering of another file is ignored.
GutterMetrics combineGutterMetrics(const CostSnapshotPtr& cost, const LowerSnapshotPtr& lowered);

} // namespace cake::views
