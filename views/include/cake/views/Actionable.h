// Actionable findings and hints (B19, issue 17 item 5): the machine-applicable edit a finding's
// fix or a cost hint carries, as replacements of the checked text, and the figures an applied
// edit is judged by (findings, blocking, predicted time) with their before → after text.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QList>
#include <QString>

namespace cake::cost {
struct Hint;
}

namespace cake::views {

struct CostSnapshot;

/// One replacement of the checked text: [begin, end) in UTF-8 bytes, as the compiler's
/// SourceRange offsets are.
struct TextReplacement {
  quint32 begin = 0, end = 0;
  QString text;
  friend bool operator==(const TextReplacement&, const TextReplacement&) = default;
};

/// The fix of diagnostic `finding` as an edit of the checked file; empty when the fix is a
/// message only, has no valid range, or points into another file (a primitive definition).
QList<TextReplacement> fixReplacements(const CheckSnapshot& snapshot, int finding);
/// A cost hint's edits (empty: the hint only describes its change).
QList<TextReplacement> hintReplacements(const cost::Hint& hint);

/// What an Apply is judged by, before and after.
struct ApplyFigures {
  int findings = 0, blocking = 0;
  bool accepted = false;
  bool costed = false; ///< predictedUs is known
  double predictedUs = 0;
};
ApplyFigures figuresOf(const CheckSnapshot& check, const CostSnapshot* cost);
/// "findings 7 → 5, blocking 4 → 3 · predicted 812 → 790 µs (−2.7 %)"; the time part only
/// when both sides are costed.
QString applyDelta(const ApplyFigures& before, const ApplyFigures& after);

} // namespace cake::views
