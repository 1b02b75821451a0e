// Code editor widget: line numbers, severity markers in the gutter, squiggles and hover text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CodeEditor.h"

#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

namespace cake::app {

namespace {
class Gutter : public QWidget {
public:
  explicit Gutter(CodeEditor* editor) : QWidget(editor), m_editor(editor) {}
  QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }

private:
  CodeEditor* m_editor;
};

QColor severityColor(int s) {
  return s == 0 ? QColor(0xd0, 0x30, 0x30) : s == 1 ? QColor(0xd0, 0x80, 0x00) : QColor(0x30, 0x80, 0xc0);
}
} // namespace

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent), m_gutter(new Gutter(this)) {
  setObjectName(QStringLiteral("irEditor"));
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::TypeWriter);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, &CodeEditor::updateGutter);
  setViewportMargins(gutterWidth(), 0, 0, 0);
}

int CodeEditor::gutterWidth() const {
  int digits = QString::number(qMax(1, blockCount())).size();
  return 14 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * qMax(3, digits);
}

void CodeEditor::updateGutter(const QRect& rect, int dy) {
  if (dy)
    m_gutter->scroll(0, dy);
  else
    m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  QRect cr = contentsRect();
  m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void CodeEditor::paintGutter(QPaintEvent* event) {
  QPainter p(m_gutter);
  QColor base = palette().color(QPalette::Base);
  bool dark = base.lightness() < 128;
  p.fillRect(event->rect(), dark ? base.lighter(115) : base.darker(104));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  int bottom = top + qRound(blockBoundingRect(block).height());
  QMap<int, int> worst;
  for (const Mark& m : m_marks)
    worst[m.line] = worst.contains(m.line) ? qMin(worst[m.line], m.severity) : m.severity;
  while (block.isValid() && top <= event->rect().bottom()) {
    if (block.isVisible() && bottom >= event->rect().top()) {
      int line = block.blockNumber() + 1;
      if (worst.contains(line)) {
        p.setBrush(severityColor(worst[line]));
        p.setPen(Qt::NoPen);
        int d = fontMetrics().height() / 2;
        p.drawEllipse(QPoint(6, top + fontMetrics().height() / 2), d / 2 + 1, d / 2 + 1);
      }
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                 QString::number(line));
    }
    block = block.next();
    top = bottom;
    bottom = top + qRound(blockBoundingRect(block).height());
  }
}

void CodeEditor::setMarks(const QList<Mark>& marks) {
  m_marks = marks;
  QList<QTextEdit::ExtraSelection> selections;
  for (const Mark& m : marks) {
    QTextBlock startBlock = document()->findBlockByNumber(m.line - 1);
    if (!startBlock.isValid())
      continue;
    QTextCursor c(startBlock);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   qMin(m.column - 1, startBlock.length() - 1));
    QTextBlock endBlock = document()->findBlockByNumber(m.endLine - 1);
    int endPos = endBlock.isValid()
                     ? endBlock.position() + qMin(m.endColumn - 1, endBlock.length() - 1)
                     : c.position() + 1;
    if (endPos <= c.position())
      endPos = c.position() + 1;
    c.setPosition(endPos, QTextCursor::KeepAnchor);
    QTextEdit::ExtraSelection sel;
    sel.cursor = c;
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(severityColor(m.severity));
    sel.format.setToolTip(m.message);
    selections << sel;
  }
  setExtraSelections(selections);
  m_gutter->update();
}

void CodeEditor::goTo(int line, int column, bool focus) {
  QTextBlock block = document()->findBlockByNumber(line - 1);
  if (!block.isValid())
    return;
  QTextCursor c(block);
  c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                 qMax(0, qMin(column - 1, block.length() - 1)));
  setTextCursor(c);
  centerCursor();
  if (focus)
    setFocus();
}

bool CodeEditor::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    QTextCursor c = cursorForPosition(viewport()->mapFromParent(help->pos()));
    int line = c.blockNumber() + 1;
    int column = c.positionInBlock() + 1;
    QStringList text;
    for (const Mark& m : m_marks) {
      bool inside = (line > m.line || (line == m.line && column >= m.column)) &&
                    (line < m.endLine || (line == m.endLine && column <= m.endColumn));
      if (inside || (help->pos().x() < gutterWidth() && line == m.line))
        text << m.message;
    }
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text.join(QStringLiteral("\n\n")), this);
    return true;
  }
  return QPlainTextEdit::event(e);
}

} // namespace cake::app
