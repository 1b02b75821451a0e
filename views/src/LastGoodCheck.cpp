// The last good check: broken texts are held back while the views show the last good result.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/LastGoodCheck.h"

namespace cake::views {

QString BrokenAt::text() const {
  QString where = QStringLiteral("%1:%2").arg(line).arg(column);
  return syntax ? QStringLiteral("syntax error at %1").arg(where)
                : QStringLiteral("type error at %1 (%2)").arg(where, code);
}

std::optional<BrokenAt> brokenAt(const CheckSnapshot& snapshot) {
  const driver::CheckResult& r = snapshot.result;
  // The verifier runs only on a text that parsed and type-checked cleanly: when it ran (or
  // nothing is blocking), every finding is about a kernel the views can show.
  if (r.accepted || r.verification.ran)
    return std::nullopt;
  const Diagnostic* first = nullptr;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.severity != Severity::Blocking)
      continue;
    // Diagnostics are sorted by location; a parse error wins over a type error before it,
    // since it is what the user is typing.
    if (d.family == Family::Syntax) {
      first = &d;
      break;
    }
    if (!first)
      first = &d;
  }
  BrokenAt at;
  if (first) {
    at.syntax = first->family == Family::Syntax;
    at.code = QString::fromStdString(first->code);
    if (first->range.valid() && r.sources) {
      LineColumn lc = r.sources->lineColumn(first->range.file, first->range.begin);
      at.line = int(lc.line);
      at.column = int(lc.column);
    }
  } else {
    // Nothing blocking was kept (the cap) or the text has no kernel at all.
    at.code = QStringLiteral("no-kernel");
    at.line = 1;
    at.column = 1;
  }
  return at;
}

void LastGoodCheck::submit(const CheckSnapshotPtr& snapshot) {
  if (!snapshot)
    return;
  std::optional<BrokenAt> broken = brokenAt(*snapshot);
  if (broken && m_shown && m_shown->path == snapshot->path) {
    setStale(broken);
    return;
  }
  m_shown = snapshot;
  setStale(std::nullopt);
  Q_EMIT checkShown(snapshot);
}

void LastGoodCheck::reset() {
  m_shown.reset();
  setStale(std::nullopt);
}

QString LastGoodCheck::bannerText() const {
  return m_stale ? QStringLiteral("stale — %1").arg(m_stale->text()) : QString();
}

void LastGoodCheck::setStale(std::optional<BrokenAt> at) {
  bool changed = at.has_value() != m_stale.has_value() ||
                 (at && (at->line != m_stale->line || at->column != m_stale->column ||
                         at->code != m_stale->code));
  m_stale = std::move(at);
  if (changed)
    Q_EMIT staleChanged(m_stale.has_value(), bannerText());
}

} // namespace cake::views
