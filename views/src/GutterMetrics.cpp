// Per-IR-line gutter metrics: time shares, bank-conflict ways, lowered instruction counts.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/GutterMetrics.h"

#include "cake/views/PerformanceData.h"

#include <QRegularExpression>
#include <algorithm>

namespace cake::views {

QHash<int, double> lineTimeShares(const CheckSnapshot& check, const QHash<int, double>& opShares) {
  QHash<int, double> out;
  if (!check.views)
    return out;
  for (auto it = opShares.begin(); it != opShares.end(); ++it)
    if (it.key() >= 0 && it.key() < check.views->ops.size())
      if (int line = check.views->ops[it.key()].span.line; line > 0)
        out[line] += it.value();
  return out;
}

QHash<int, int> lineBankWays(const CheckSnapshot& check) {
  QHash<int, int> out;
  if (!check.views)
    return out;
  for (const verify::SmemAccessPattern& a : check.result.verification.smemAccesses)
    if (a.op < std::size_t(check.views->ops.size()))
      if (int line = check.views->ops[int(a.op)].span.line; line > 0)
        out[line] = std::max(out.value(line, 0), std::max(1, a.degree));
  return out;
}

QHash<int, int> lineInstructions(const QString& text, LoweredEmit kind, const LoweredLineMap& map) {
  static const QRegularExpression sassInsn(QStringLiteral(R"(^\s*/\*[0-9a-fA-F]{4,}\*/)"));
  QHash<int, int> out;
  if (kind != LoweredEmit::Ptx && kind != LoweredEmit::Sass)
    return out;
  const QStringList lines = text.split(QLatin1Char('\n'));
  for (int i = 0; i < lines.size(); ++i) {
    int source = map.sourceLine(i + 1);
    if (source <= 0)
      continue;
    bool insn = false;
    if (kind == LoweredEmit::Sass) {
      insn = sassInsn.match(lines[i]).hasMatch();
    } else {
      // A PTX instruction ends with ';' (also inside inline asm); declarations and directives
      // start with '.', comments with "//".
      const QString t = lines[i].trimmed();
      insn = t.endsWith(QLatin1Char(';')) && !t.startsWith(QLatin1Char('.')) &&
             !t.startsWith(QLatin1String("//"));
    }
    if (insn)
      ++out[source];
  }
  return out;
}

LineMetric GutterMetrics::at(int line) const {
  LineMetric m;
  m.share = shares.value(line, -1.0);
  m.bankWays = bankWays.value(line, 0);
  m.instructions = instructions.value(line, -1);
  return m;
}

double GutterMetrics::heat(int line) const {
  double s = shares.value(line, 0.0);
  return maxShare > 0 && s > 0 ? std::clamp(s / maxShare, 0.0, 1.0) : 0.0;
}

QString GutterMetrics::cell(int line, GutterColumn column) const {
  LineMetric m = at(line);
  switch (column) {
  case GutterTimeShare:
    if (m.share < 0)
      return {};
    // Whole percents; a share that rounds to 0 but is not 0 says "<1%".
    return m.share * 100.0 < 0.5 && m.share > 0 ? QStringLiteral("<1%")
                                                : QStringLiteral("%1%").arg(qRound(m.share * 100));
  case GutterBankWays:
    return m.bankWays > 0 ? QStringLiteral("%1×").arg(m.bankWays) : QString();
  case GutterInstructions:
    return m.instructions >= 0 ? QString::number(m.instructions) : QString();
  default:
    return {};
  }
}

QString gutterColumnTitle(GutterColumn column, const GutterMetrics& metrics) {
  switch (column) {
  case GutterTimeShare:
    return QStringLiteral("time");
  case GutterBankWays:
    return QStringLiteral("bank");
  case GutterInstructions:
    return metrics.instructionKind.isEmpty() ? QStringLiteral("insn") : metrics.instructionKind;
  case GutterLineNumbers:
    return QStringLiteral("line");
  default:
    return {};
  }
}

QString gutterColumnToolTip(GutterColumn column, const GutterMetrics& metrics) {
  switch (column) {
  case GutterTimeShare:
    return QStringLiteral(
        "<b>Time share</b> (%): the line's share of the kernel's predicted time, from the cost "
        "model — its operations' pipe time plus the waiting they cause on the critical role. "
        "Scope: the whole kernel; the lines add up to 100%.");
  case GutterBankWays:
    return QStringLiteral(
        "<b>Bank-conflict ways</b> (×): the worst n-way shared-memory bank conflict of the "
        "line's accesses, per warp access phase (the verifier's bank model; 1× is "
        "conflict-free). Blank: no modelled shared-memory access.");
  case GutterInstructions: {
    QString kind =
        metrics.instructionKind.isEmpty() ? QStringLiteral("PTX or SASS") : metrics.instructionKind;
    return QStringLiteral("<b>%1 instructions</b> (count): the %1 instructions lowered from the "
                          "line, found through the line info of the lowered code. Scope: one "
                          "thread's program, static (a loop body counts once).")
        .arg(kind);
  }
  case GutterHeatStrip:
    return QStringLiteral("<b>Heat strip</b>: the line's time share relative to the hottest "
                          "line (the most saturated is the hottest).");
  case GutterLineNumbers:
    return QStringLiteral("<b>Line</b>: the IR line number; a dot marks the most severe finding "
                          "on the line (hover it for the messages).");
  default:
    return {};
  }
}

QString GutterMetrics::tooltip(int line) const {
  LineMetric m = at(line);
  QStringList parts;
  if (m.share >= 0)
    parts
        << QStringLiteral("%1% of the predicted time (cost model)").arg(m.share * 100.0, 0, 'f', 1);
  if (m.bankWays == 1)
    parts << QStringLiteral("shared-memory accesses free of bank conflicts");
  else if (m.bankWays > 1)
    parts << QStringLiteral("%1-way bank conflicts (worst access phase)").arg(m.bankWays);
  if (m.instructions >= 0)
    parts << QStringLiteral("%1 %2 instruction(s)").arg(m.instructions).arg(instructionKind);
  return parts.join(QLatin1Char('\n'));
}

GutterMetrics combineGutterMetrics(const CostSnapshotPtr& cost, const LowerSnapshotPtr& lowered) {
  GutterMetrics g;
  if (cost) {
    g.checkJob = cost->checkJob;
    g.shares = cost->lineShares;
    g.bankWays = cost->lineBankWays;
  }
  bool sameFile = !cost || !cost->check || !lowered || !lowered->check ||
                  cost->check->path == lowered->check->path;
  if (lowered && sameFile && lowered->ok &&
      (lowered->kind == LoweredEmit::Ptx || lowered->kind == LoweredEmit::Sass)) {
    g.checkJob = std::max(g.checkJob, lowered->checkJob);
    g.instructions = lowered->instructions;
    g.instructionKind = loweredEmitName(lowered->kind);
  }
  for (double s : std::as_const(g.shares))
    g.maxShare = std::max(g.maxShare, s);
  return g;
}

} // namespace cake::views
