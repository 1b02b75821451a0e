// Edits of findings' fixes and cost hints, and the before → after figures of an Apply.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/Actionable.h"

#include "cake/Cost/CostModel.h"
#include "cake/views/PerformanceData.h"

#include <cmath>

namespace cake::views {

QList<TextReplacement> fixReplacements(const CheckSnapshot& snapshot, int finding) {
  const driver::CheckResult& r = snapshot.result;
  if (finding < 0 || std::size_t(finding) >= r.diagnostics.size())
    return {};
  const Diagnostic& d = r.diagnostics[std::size_t(finding)];
  if (!d.fix || !d.fix->range.valid() || d.fix->range.file != r.file ||
      d.fix->range.begin > d.fix->range.end)
    return {};
  // The edit must lie inside the text that was checked (it is what the editor holds).
  if (d.fix->range.end > quint32(snapshot.text.toUtf8().size()))
    return {};
  return {{d.fix->range.begin, d.fix->range.end, QString::fromStdString(d.fix->replacement)}};
}

QList<TextReplacement> hintReplacements(const cost::Hint& hint) {
  QList<TextReplacement> out;
  for (const cost::TextEdit& e : hint.edits)
    out.append({e.range.begin, e.range.end, QString::fromStdString(e.replacement)});
  return out;
}

ApplyFigures figuresOf(const CheckSnapshot& check, const CostSnapshot* cost) {
  ApplyFigures f;
  f.accepted = check.result.accepted;
  for (const Diagnostic& d : check.result.diagnostics) {
    ++f.findings;
    f.blocking += d.severity == Severity::Blocking;
  }
  if (cost && cost->data.ok && cost->checkJob == check.jobId) {
    f.costed = true;
    f.predictedUs = cost->data.predictedUs;
  }
  return f;
}

QString applyDelta(const ApplyFigures& before, const ApplyFigures& after) {
  QString text = QStringLiteral("findings %1 → %2, blocking %3 → %4")
                     .arg(before.findings)
                     .arg(after.findings)
                     .arg(before.blocking)
                     .arg(after.blocking);
  if (before.accepted != after.accepted)
    text += after.accepted ? QStringLiteral(" (now accepted)") : QStringLiteral(" (now refused)");
  if (before.costed && after.costed && before.predictedUs > 0) {
    double change = (after.predictedUs - before.predictedUs) / before.predictedUs * 100;
    text += QStringLiteral(" · predicted %1 → %2 µs (%3%4 %)")
                .arg(before.predictedUs, 0, 'f', 1)
                .arg(after.predictedUs, 0, 'f', 1)
                .arg(change < 0 ? QStringLiteral("−") : QStringLiteral("+"))
                .arg(std::abs(change), 0, 'f', 1);
  }
  return text;
}

} // namespace cake::views
