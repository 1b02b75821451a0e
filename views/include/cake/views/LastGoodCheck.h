// Keeps the last check whose text parsed and type-checked while the user types through a
// transient error: the views go on showing it, marked stale with the error's location.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/CompileSession.h"

#include <QObject>
#include <QString>
#include <optional>

namespace cake::views {

/// Where a check's text stops parsing or type-checking (the first blocking finding of the
/// parser, else of the type checker).
struct BrokenAt {
  int line = 0;
  int column = 0;
  bool syntax = true; ///< a parse error (else a type error)
  QString code;       ///< the finding's stable code
  /// "syntax error at 12:5" / "type error at 12:5 (code)".
  QString text() const;
};

/// The location that keeps a check from the views, or nothing when its text parsed and
/// type-checked (a kernel the verifier refuses is a result to show, not a broken text).
std::optional<BrokenAt> brokenAt(const CheckSnapshot& snapshot);

/// Between the compile façade and the views: forwards every check whose text parsed and
/// type-checked; a broken one is held back while an earlier good check of the same file is
/// shown, and the views are marked stale until the text is valid again.
class LastGoodCheck : public QObject {
  Q_OBJECT
public:
  explicit LastGoodCheck(QObject* parent = nullptr) : QObject(parent) {}

  /// A delivered check: shown (shown() emitted) or held back (staleChanged()).
  void submit(const CheckSnapshotPtr& snapshot);
  /// Forgets the last good check (another file was opened): the next check is shown whatever
  /// it holds, since there is nothing of this file to keep.
  void reset();

  /// The check the views show (nullptr before the first).
  const CheckSnapshotPtr& shown() const { return m_shown; }
  /// Job id of the check the views show (0 before the first).
  quint64 shownJob() const { return m_shown ? m_shown->jobId : 0; }
  bool isStale() const { return m_stale.has_value(); }
  /// Why the views are stale (empty when they are not).
  const std::optional<BrokenAt>& staleAt() const { return m_stale; }
  /// "stale — syntax error at 12:5" (empty when the views are current).
  QString bannerText() const;

Q_SIGNALS:
  /// The views are to show this check.
  void checkShown(cake::views::CheckSnapshotPtr snapshot);
  /// The shown check became stale (`text` is bannerText()) or current again (`stale` false).
  void staleChanged(bool stale, const QString& text);

private:
  void setStale(std::optional<BrokenAt> at);
  CheckSnapshotPtr m_shown;
  std::optional<BrokenAt> m_stale;
};

} // namespace cake::views
