// Cake IR syntax highlighter (lexical colouring only; no parsing on the GUI thread).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CakeHighlighter.h"

#include <QColor>
#include <QFont>

namespace cake::views {

CakeHighlighter::CakeHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  setDark(false);
}

void CakeHighlighter::setDark(bool dark) {
  auto fmt = [](QColor c, bool bold = false) {
    QTextCharFormat f;
    f.setForeground(c);
    if (bold)
      f.setFontWeight(QFont::Bold);
    return f;
  };
  QColor keyword = dark ? QColor(0xc6, 0x78, 0xdd) : QColor(0x8b, 0x1e, 0x9e);
  QColor decl = dark ? QColor(0x61, 0xaf, 0xef) : QColor(0x1f, 0x4f, 0xb0);
  QColor op = dark ? QColor(0xe5, 0xc0, 0x7b) : QColor(0x8a, 0x5a, 0x00);
  QColor number = dark ? QColor(0xd1, 0x9a, 0x66) : QColor(0xa0, 0x40, 0x00);
  QColor type = dark ? QColor(0x56, 0xb6, 0xc2) : QColor(0x00, 0x7a, 0x7a);
  QColor attr = dark ? QColor(0x98, 0xc3, 0x79) : QColor(0x2e, 0x7d, 0x32);
  QColor comment = dark ? QColor(0x8b, 0x91, 0x9a) : QColor(0x6a, 0x73, 0x7d); // both >= 4.5:1 (WCAG AA)
  m_rules.clear();
  // The first word of a line is an operation unless a keyword rule below claims it.
  m_rules.push_back({QRegularExpression(R"(^\s*([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)\b)"),
                     fmt(op, true)});
  m_rules.push_back({QRegularExpression(R"(\b(kernel|on|for|in)\b)"), fmt(keyword, true)});
  m_rules.push_back({QRegularExpression(R"(\b(const|param|tensormap|grid|role|pipeline|pool|smem|tmem|reg|mbarrier|nbarrier)\b)"),
                     fmt(decl, true)});
  m_rules.push_back({QRegularExpression(R"(\b(f64|f32|tf32|f16|bf16|f8e4m3|f8e5m2|f6e2m3|f6e3m2|f4e2m1|i64|i32|i16|i8|u64|u32|u16|u8|pred)\b)"),
                     fmt(type)});
  m_rules.push_back({QRegularExpression(R"(\b[A-Za-z_][A-Za-z0-9_]*(?==))"), fmt(attr)});
  m_rules.push_back({QRegularExpression(R"(\b(0x[0-9a-fA-F_]+|0b[01_]+|\d[\d_]*(\.\d+)?(e[+-]?\d+)?[A-Za-z]*)\b)"),
                     fmt(number)});
  m_comment = fmt(comment);
  m_comment.setFontItalic(true);
  rehighlight();
}

void CakeHighlighter::highlightBlock(const QString& text) {
  int commentAt = -1;
  bool inString = false;
  for (int i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '"')
      inString = !inString;
    if (!inString && text[i] == '/' && text[i + 1] == '/') {
      commentAt = i;
      break;
    }
  }
  QString code = commentAt >= 0 ? text.left(commentAt) : text;
  for (const Rule& r : m_rules) {
    auto it = r.pattern.globalMatch(code);
    while (it.hasNext()) {
      auto m = it.next();
      int group = m.lastCapturedIndex() >= 1 ? 1 : 0;
      setFormat(int(m.capturedStart(group)), int(m.capturedLength(group)), r.format);
    }
  }
  if (commentAt >= 0)
    setFormat(commentAt, int(text.size()) - commentAt, m_comment);
}

} // namespace cake::views
