// Syntax highlighting of Cake IR text: keywords, primitive names, numbers, tags, comments.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace cake::views {

class CakeHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  explicit CakeHighlighter(QTextDocument* document);
  /// Picks colours readable on the given background (dark or light palette).
  void setDark(bool dark);

protected:
  void highlightBlock(const QString& text) override;

private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> m_rules;
  QTextCharFormat m_comment;
};

} // namespace cake::views
