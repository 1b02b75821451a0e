// The small banner every view shows above its content while it holds the last good result of
// a text that no longer parses or type-checks ("stale — syntax error at 12:5").
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

namespace cake::views {
class LastGoodCheck;
}

namespace cake::widgets {

class StaleBanner : public QLabel {
  Q_OBJECT
public:
  /// Hidden until `source` reports stale views; follows it from then on.
  explicit StaleBanner(views::LastGoodCheck* source, QWidget* parent = nullptr);

  /// `view` below a banner that follows `source`, in one container (what a dock shows).
  static QWidget* wrap(QWidget* view, views::LastGoodCheck* source);
  /// The banner of a container made by wrap() (nullptr for any other widget).
  static StaleBanner* of(const QWidget* container);

Q_SIGNALS:
  /// The location link was clicked: the editor should go there.
  void locationActivated(int line, int column);

private:
  void update(bool stale, const QString& text);
  views::LastGoodCheck* m_source;
};

} // namespace cake::widgets
