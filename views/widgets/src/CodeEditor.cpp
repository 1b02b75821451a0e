// Code editor widget: line numbers, severity markers in the gutter, squiggles and hover text,
// go-to-definition, completion from the primitive registry, and the shared selection.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/CodeEditor.h"

#include "cake/Driver/Compiler.h"
#include "cake/views/Completion.h"
#include "cake/views/SelectionModel.h"
#include "cake/views/SymbolIndex.h"
#include "cake/views/ViewPalette.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCompleter>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMap>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QStringListModel>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>

namespace cake::widgets {

namespace {
class Gutter : public QWidget {
public:
  explicit Gutter(CodeEditor* editor) : QWidget(editor), m_editor(editor) {}
  QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }
  void contextMenuEvent(QContextMenuEvent* event) override {
    m_editor->gutterContextMenu(event->globalPos());
  }

private:
  CodeEditor* m_editor;
};

/// The header row over the gutter: a column's name, its unit and scope as the tool tip.
class GutterHeader : public QWidget {
public:
  explicit GutterHeader(CodeEditor* editor) : QWidget(editor), m_editor(editor) {
    setObjectName(QStringLiteral("gutterHeader"));
    hide();
  }

protected:
  void paintEvent(QPaintEvent* event) override { m_editor->paintGutterHeader(event); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(e);
      views::GutterColumn column = m_editor->gutterColumnAt(help->pos().x());
      QString tip =
          column ? views::gutterColumnToolTip(column, m_editor->gutterMetrics()) : QString();
      if (tip.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), tip, this);
      return true;
    }
    return QWidget::event(e);
  }
  void contextMenuEvent(QContextMenuEvent* event) override {
    m_editor->gutterContextMenu(event->globalPos());
  }

private:
  CodeEditor* m_editor;
};

/// The header's font: the editor's, a little smaller, so that names fit the value columns.
QFont headerFont(const QFont& editorFont) {
  QFont f = editorFont;
  if (f.pointSizeF() > 0)
    f.setPointSizeF(f.pointSizeF() * 0.85);
  else
    f.setPixelSize(std::max(8, f.pixelSize() * 85 / 100));
  return f;
}

bool inside(const CodeEditor::Mark& m, int line, int column) {
  return (line > m.line || (line == m.line && column >= m.column)) &&
         (line < m.endLine || (line == m.endLine && column <= m.endColumn));
}
} // namespace

CodeEditor::CodeEditor(QWidget* parent)
    : QPlainTextEdit(parent), m_gutter(new Gutter(this)), m_header(new GutterHeader(this)),
      m_completer(new QCompleter(this)), m_completions(new QStringListModel(this)) {
  setObjectName(QStringLiteral("irEditor"));
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::TypeWriter);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setMouseTracking(true);
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterGeometry(); });
  connect(this, &QPlainTextEdit::updateRequest, this, &CodeEditor::updateGutter);
  updateGutterGeometry();

  m_completer->setModel(m_completions);
  m_completer->setWidget(this);
  m_completer->setCompletionMode(QCompleter::PopupCompletion);
  m_completer->setCaseSensitivity(Qt::CaseSensitive);
  m_completer->popup()->setObjectName(QStringLiteral("completionPopup"));
  connect(m_completer, qOverload<const QString&>(&QCompleter::activated), this,
          &CodeEditor::insertCompletion);

  const std::pair<views::GutterColumn, QString> columns[] = {
      {views::GutterTimeShare, tr("Time share (cost model)")},
      {views::GutterBankWays, tr("Bank-conflict ways")},
      {views::GutterInstructions, tr("PTX / SASS instructions")},
      {views::GutterHeatStrip, tr("Heat strip")}};
  for (const auto& [column, label] : columns) {
    auto* a = new QAction(label, this);
    a->setCheckable(true);
    a->setChecked(m_columns & column);
    a->setData(unsigned(column));
    a->setObjectName(QStringLiteral("gutterColumn%1").arg(unsigned(column)));
    connect(a, &QAction::toggled, this, [this, column](bool on) {
      setGutterColumns(on ? m_columns | column : m_columns & ~unsigned(column));
    });
    m_columnActions << a;
  }
}

CodeEditor::~CodeEditor() = default;

namespace {
constexpr int kStripWidth = 5;
constexpr views::GutterColumn kTextColumns[] = {views::GutterTimeShare, views::GutterBankWays,
                                                views::GutterInstructions};
} // namespace

QRect CodeEditor::gutterColumnRect(views::GutterColumn column) const {
  const views::GutterMetrics& g = m_metrics;
  auto has = [&](views::GutterColumn c) {
    if (!(m_columns & c))
      return false;
    switch (c) {
    case views::GutterTimeShare:
    case views::GutterHeatStrip:
      return !g.shares.isEmpty();
    case views::GutterBankWays:
      return !g.bankWays.isEmpty();
    case views::GutterInstructions:
      return !g.instructions.isEmpty();
    default:
      return false;
    }
  };
  int charW = fontMetrics().horizontalAdvance(QLatin1Char('9'));
  int x = 0;
  if (has(views::GutterHeatStrip)) {
    if (column == views::GutterHeatStrip)
      return QRect(0, 0, kStripWidth, 1);
    x += kStripWidth + 1;
  }
  for (views::GutterColumn c : kTextColumns) {
    if (!has(c))
      continue;
    int chars = 3; // "12%", "32×"
    if (c == views::GutterTimeShare)
      chars = 4; // "100%"
    if (c == views::GutterInstructions) {
      int most = 0;
      for (int n : g.instructions)
        most = qMax(most, n);
      chars = qMax(2, int(QString::number(most).size()));
    }
    // Wide enough for the value and for the header's name of the column.
    int w = std::max(
        charW * chars + 4,
        QFontMetrics(headerFont(font())).horizontalAdvance(views::gutterColumnTitle(c, g)) + 6);
    if (c == column)
      return QRect(x, 0, w, 1);
    x += w;
  }
  if (column == views::GutterLineNumbers) {
    int digits = QString::number(qMax(1, blockCount())).size();
    return QRect(x, 0, 18 + charW * qMax(3, digits), 1);
  }
  return column == views::GutterColumn(0) ? QRect(x, 0, 0, 1) : QRect();
}

int CodeEditor::gutterWidth() const {
  QRect numbers = gutterColumnRect(views::GutterLineNumbers);
  return numbers.x() + numbers.width();
}

views::GutterColumn CodeEditor::gutterColumnAt(int x) const {
  for (views::GutterColumn c :
       {views::GutterHeatStrip, views::GutterTimeShare, views::GutterBankWays,
        views::GutterInstructions, views::GutterLineNumbers}) {
    QRect r = gutterColumnRect(c);
    if (!r.isEmpty() && x >= r.left() && x <= r.right())
      return c;
  }
  return views::GutterColumn(0);
}

int CodeEditor::gutterHeaderHeight() const {
  // Only the optional columns need naming; a plain gutter of line numbers keeps its old look.
  if (gutterColumnRect(views::GutterColumn(0)).x() == 0)
    return 0;
  return QFontMetrics(headerFont(font())).height() + 4;
}

void CodeEditor::updateGutterGeometry() {
  const int header = gutterHeaderHeight();
  setViewportMargins(gutterWidth(), header, 0, 0);
  QRect cr = contentsRect();
  m_gutter->setGeometry(QRect(cr.left(), cr.top() + header, gutterWidth(), cr.height() - header));
  m_header->setFont(headerFont(font()));
  m_header->setGeometry(QRect(cr.left(), cr.top(), cr.width(), header));
  m_header->setVisible(header > 0);
  m_gutter->update();
  m_header->update();
}

void CodeEditor::paintGutterHeader(QPaintEvent* event) {
  QPainter p(m_header);
  QColor base = palette().color(QPalette::Base);
  bool dark = base.lightness() < 128;
  // The gutter's shade over the gutter, the header strip's over the text, a rule below.
  p.fillRect(event->rect(), dark ? base.lighter(125) : base.darker(108));
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(0, m_header->height() - 1, m_header->width(), m_header->height() - 1);
  p.setFont(m_header->font());
  p.setPen(palette().color(QPalette::PlaceholderText));
  const int h = m_header->height() - 1;
  for (views::GutterColumn c : {views::GutterTimeShare, views::GutterBankWays,
                                views::GutterInstructions, views::GutterLineNumbers}) {
    QRect r = gutterColumnRect(c);
    if (r.isEmpty())
      continue;
    // Right-aligned like the values below (4 from the column's right edge).
    p.drawText(QRect(r.x(), 0, r.width() - 4, h), Qt::AlignRight | Qt::AlignVCenter,
               views::gutterColumnTitle(c, m_metrics));
  }
}

void CodeEditor::setGutterMetrics(const views::GutterMetrics& metrics) {
  m_metrics = metrics;
  updateGutterGeometry();
}

void CodeEditor::setGutterColumns(unsigned columns) {
  m_columns = columns & views::GutterAllColumns;
  for (QAction* a : std::as_const(m_columnActions)) {
    const QSignalBlocker block(a);
    a->setChecked(m_columns & a->data().toUInt());
  }
  setGutterMetrics(m_metrics);
}

void CodeEditor::gutterContextMenu(const QPoint& globalPos) {
  QMenu menu(this);
  menu.setObjectName(QStringLiteral("gutterMenu"));
  menu.addSection(tr("Gutter columns"));
  for (QAction* a : std::as_const(m_columnActions))
    menu.addAction(a);
  menu.exec(globalPos);
}

void CodeEditor::updateGutter(const QRect& rect, int dy) {
  if (dy)
    m_gutter->scroll(0, dy);
  else
    m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  updateGutterGeometry();
}

void CodeEditor::paintGutter(QPaintEvent* event) {
  QPainter p(m_gutter);
  p.setRenderHint(QPainter::Antialiasing);
  QColor base = palette().color(QPalette::Base);
  bool dark = base.lightness() < 128;
  p.fillRect(event->rect(), dark ? base.lighter(115) : base.darker(104));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  int bottom = top + qRound(blockBoundingRect(block).height());
  QMap<int, int> worst;
  for (const Mark& m : m_marks)
    worst[m.line] = worst.contains(m.line) ? qMin(worst[m.line], m.severity) : m.severity;
  const int current = textCursor().blockNumber() + 1;
  const int lead = gutterColumnRect(views::GutterColumn(0)).x();
  const QRect strip = gutterColumnRect(views::GutterHeatStrip);
  // The heat strip: the time share over the largest line share, from transparent to the
  // cost colour of the graph's cost overlay (ViewPalette).
  const views::ViewPalette& pal = views::ViewPalette::forPalette(palette());
  const QColor hot = pal.cost;
  while (block.isValid() && top <= event->rect().bottom()) {
    if (block.isVisible() && bottom >= event->rect().top()) {
      int line = block.blockNumber() + 1;
      int h = bottom - top;
      if (!strip.isEmpty())
        if (double heat = m_metrics.heat(line); heat > 0) {
          QColor c = hot;
          c.setAlphaF(float(0.15 + 0.85 * heat));
          p.fillRect(QRect(strip.x(), top, strip.width(), h), c);
        }
      QColor dim = palette().color(QPalette::PlaceholderText);
      for (views::GutterColumn col : kTextColumns) {
        QRect r = gutterColumnRect(col);
        if (r.isEmpty())
          continue;
        QString text = m_metrics.cell(line, col);
        if (text.isEmpty())
          continue;
        // Conflicts (more than 1 way) and the line's time share stand out; the rest is dim.
        bool loud = (col == views::GutterBankWays && m_metrics.bankWays.value(line) > 1) ||
                    (col == views::GutterTimeShare && m_metrics.heat(line) >= 0.5);
        p.setPen(loud ? (col == views::GutterBankWays ? pal.severity(1) : pal.costText()) : dim);
        p.drawText(r.x(), top, r.width() - 4, fontMetrics().height(), Qt::AlignRight, text);
      }
      if (worst.contains(line)) {
        p.setBrush(views::ViewPalette::forPalette(palette()).severity(worst[line]));
        p.setPen(Qt::NoPen);
        int r = qMax(3, fontMetrics().height() / 4);
        p.drawEllipse(QPoint(lead + r + 3, top + fontMetrics().height() / 2), r, r);
      }
      QColor number = palette().color(QPalette::PlaceholderText);
      if (line == current)
        number = palette().color(QPalette::Text);
      p.setPen(number);
      p.drawText(lead, top, m_gutter->width() - lead - 4, fontMetrics().height(), Qt::AlignRight,
                 QString::number(line));
    }
    block = block.next();
    top = bottom;
    bottom = top + qRound(blockBoundingRect(block).height());
  }
}

void CodeEditor::setMarks(const QList<Mark>& marks) {
  m_marks = marks;
  m_markSelections.clear();
  for (const Mark& m : marks) {
    QTextBlock startBlock = document()->findBlockByNumber(m.line - 1);
    if (!startBlock.isValid())
      continue;
    QTextCursor c(startBlock);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   qMax(0, qMin(m.column - 1, startBlock.length() - 1)));
    QTextBlock endBlock = document()->findBlockByNumber(m.endLine - 1);
    int endPos = endBlock.isValid()
                     ? endBlock.position() + qMax(0, qMin(m.endColumn - 1, endBlock.length() - 1))
                     : c.position() + 1;
    if (endPos <= c.position())
      endPos = c.position() + 1; // an empty range still gets a visible squiggle
    c.setPosition(endPos, QTextCursor::KeepAnchor);
    QTextEdit::ExtraSelection sel;
    sel.cursor = c;
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(views::ViewPalette::forPalette(palette()).severity(m.severity));
    sel.format.setToolTip(m.message);
    m_markSelections << sel;
  }
  refreshExtraSelections();
  m_gutter->update();
}

void CodeEditor::refreshExtraSelections() {
  setExtraSelections(m_markSelections);
}

void CodeEditor::setSnapshot(const views::CheckSnapshotPtr& snapshot) {
  m_snapshot = snapshot;
  QList<Mark> marks;
  if (snapshot && snapshot->result.sources) {
    const driver::CheckResult& r = snapshot->result;
    const SourceManager& sm = *r.sources;
    for (const Diagnostic& d : r.diagnostics) {
      // Findings located in other files (primitive definitions) have no place in this text.
      if (d.range.file != r.file || !sm.contains(d.range.file))
        continue;
      LineColumn b = sm.lineColumn(d.range.file, d.range.begin);
      LineColumn e = sm.lineColumn(d.range.file, d.range.end);
      QString text =
          QStringLiteral("%1 [%2] %3")
              .arg(QString::fromUtf8(toString(d.severity).data(), int(toString(d.severity).size())),
                   QString::fromStdString(d.code), QString::fromStdString(d.message));
      for (const DiagNote& n : d.notes) {
        QString where;
        if (sm.contains(n.range.file)) {
          LineColumn nl = sm.lineColumn(n.range.file, n.range.begin);
          where = n.range.file == r.file ? QStringLiteral("line %1: ").arg(nl.line)
                                         : QStringLiteral("%1:%2: ")
                                               .arg(QString::fromStdString(sm.name(n.range.file)))
                                               .arg(nl.line);
        }
        text += QStringLiteral("\n  note: ") + where + QString::fromStdString(n.message);
      }
      if (d.fix)
        text += QStringLiteral("\n  fix: ") + QString::fromStdString(d.fix->message);
      marks << Mark{int(b.line), int(b.column), int(e.line), int(e.column), int(d.severity), text};
    }
  }
  setMarks(marks);
}

void CodeEditor::setSelectionModel(views::SelectionModel* selection) {
  if (m_selection)
    disconnect(m_selection, nullptr, this, nullptr);
  m_selection = selection;
  if (!selection)
    return;
  connect(selection, &views::SelectionModel::selectionChanged, this,
          &CodeEditor::onSelectionChanged);
  connect(this, &QPlainTextEdit::cursorPositionChanged, selection, [this] {
    if (!m_movingCursor && m_selection)
      m_selection->selectLine(cursorLine(), views::SelectionOrigin::Editor);
    m_gutter->update();
  });
}

void CodeEditor::onSelectionChanged(const views::Selection& s, views::SelectionOrigin origin) {
  if (origin == views::SelectionOrigin::Editor || origin == views::SelectionOrigin::Program)
    return;
  int line = 0, column = 0;
  // A finding goes to its own position (an op spans the line; the finding may be one operand).
  const auto& snap = m_selection->snapshot();
  if (s.finding >= 0 && snap && std::size_t(s.finding) < snap->result.diagnostics.size()) {
    const Diagnostic& d = snap->result.diagnostics[std::size_t(s.finding)];
    if (d.range.file == snap->result.file && snap->result.sources->contains(d.range.file)) {
      LineColumn lc = snap->result.sources->lineColumn(d.range.file, d.range.begin);
      line = int(lc.line);
      column = int(lc.column);
    }
  }
  if (line == 0) {
    views::SourceSpan span = m_selection->sourceOf(s);
    line = span.line;
    column = span.column;
  }
  if (line > 0) {
    m_movingCursor = true;
    goTo(line, column, false);
    m_movingCursor = false;
  }
}

void CodeEditor::setCompiler(std::shared_ptr<const driver::Compiler> compiler) {
  m_compiler = std::move(compiler);
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

bool CodeEditor::applyReplacements(const QString& basedOn,
                                   const QList<views::TextReplacement>& edits) {
  if (edits.isEmpty() || toPlainText() != basedOn)
    return false;
  const QByteArray utf8 = basedOn.toUtf8();
  QList<views::TextReplacement> sorted = edits;
  std::sort(sorted.begin(), sorted.end(),
            [](const views::TextReplacement& a, const views::TextReplacement& b) {
              return a.begin > b.begin;
            });
  quint32 limit = quint32(utf8.size());
  for (const views::TextReplacement& e : sorted) {
    if (e.begin > e.end || e.end > limit)
      return false; // outside the text, or overlapping the next edit
    limit = e.begin;
  }
  // Byte offsets to document positions (UTF-16 code units, as QTextCursor counts them).
  auto position = [&](quint32 byte) {
    return int(QString::fromUtf8(utf8.constData(), qsizetype(byte)).size());
  };
  QTextCursor c(document());
  c.beginEditBlock(); // one undo step for all of them
  for (const views::TextReplacement& e : sorted) {
    c.setPosition(position(e.begin));
    c.setPosition(position(e.end), QTextCursor::KeepAnchor);
    c.insertText(e.text);
  }
  c.endEditBlock();
  // The cursor after the first edit, so the user sees what changed.
  QTextCursor at(document());
  at.setPosition(position(sorted.last().begin) + int(sorted.last().text.size()));
  setTextCursor(at);
  centerCursor();
  return true;
}

int CodeEditor::cursorLine() const {
  return textCursor().blockNumber() + 1;
}
int CodeEditor::cursorColumn() const {
  return textCursor().positionInBlock() + 1;
}

bool CodeEditor::goToDefinition() {
  const views::SymbolIndex* index =
      m_snapshot && m_snapshot->views ? m_snapshot->views->symbols.get() : nullptr;
  QTextCursor word = textCursor();
  word.select(QTextCursor::WordUnderCursor);
  QString name = word.selectedText();
  int def = index ? index->definitionAt(cursorLine(), cursorColumn()) : -1;
  // Edited since the check: positions may have moved; fall back to the name itself when the
  // word under the cursor is a declared name (the index still resolves names, not text).
  if (def >= 0 && index->defs[def].name != name && !name.isEmpty())
    def = -1;
  if (def < 0 && index && !name.isEmpty())
    def = index->find(name);
  if (def < 0) {
    // A primitive's definition is its registry file: show its entry where the cursor is.
    QString dotted = views::dottedWordAt(textCursor().block().text(), textCursor().positionInBlock());
    QString entry = m_compiler && !dotted.isEmpty()
                        ? views::primitiveDescription(m_compiler->registry(), dotted)
                        : QString();
    if (!entry.isEmpty()) {
      m_lastPrimitiveEntry = entry;
      QToolTip::showText(viewport()->mapToGlobal(cursorRect().bottomLeft()), entry, viewport());
      Q_EMIT statusMessage(tr("primitive %1 — defined in %2")
                               .arg(dotted, QString::fromStdString(m_compiler->registry().find(dotted.toStdString())->path)));
      return true;
    }
    Q_EMIT statusMessage(name.isEmpty() ? tr("no name under the cursor")
                                        : tr("no definition for '%1'").arg(name));
    return false;
  }
  const views::SymbolDef& d = index->defs[def];
  goTo(d.nameSpan.line, d.nameSpan.column, true);
  Q_EMIT statusMessage(tr("%1 %2 declared at line %3").arg(d.kind, d.name).arg(d.nameSpan.line));
  return true;
}

QString CodeEditor::hoverText(int line, int column, bool gutter) const {
  QStringList text;
  for (const Mark& m : m_marks)
    if (gutter ? line == m.line : inside(m, line, column))
      text << m.message;
  if (gutter)
    if (QString metrics = m_metrics.tooltip(line); !metrics.isEmpty())
      text << metrics;
  return text.join(QStringLiteral("\n\n"));
}

bool CodeEditor::showHover(QPoint viewportPos, QPoint globalPos, bool gutter) {
  QTextCursor c = cursorForPosition(viewportPos);
  QString text = hoverText(c.blockNumber() + 1, c.positionInBlock() + 1, gutter);
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(globalPos, text, this);
  return true;
}

bool CodeEditor::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    // Help events of the gutter reach the editor (the gutter does not handle them).
    auto* help = static_cast<QHelpEvent*>(e);
    QPoint vp = viewport()->mapFromParent(help->pos());
    return showHover(QPoint(0, vp.y()), help->globalPos(), help->pos().x() < gutterWidth());
  }
  return QPlainTextEdit::event(e);
}

bool CodeEditor::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    return showHover(help->pos(), help->globalPos(), false);
  }
  return QPlainTextEdit::viewportEvent(e);
}

void CodeEditor::keyPressEvent(QKeyEvent* e) {
  QAbstractItemView* popup = m_completer->popup();
  if (popup->isVisible()) {
    // The completer's popup handles choosing and dismissing.
    switch (e->key()) {
    case Qt::Key_Enter:
    case Qt::Key_Return:
    case Qt::Key_Escape:
    case Qt::Key_Tab:
    case Qt::Key_Backtab:
      e->ignore();
      return;
    default:
      break;
    }
  }
  if (e->key() == Qt::Key_F12) {
    goToDefinition();
    return;
  }
  if (e->key() == Qt::Key_Space && (e->modifiers() & Qt::ControlModifier)) {
    complete(true);
    return;
  }
  QPlainTextEdit::keyPressEvent(e);
  // Typing a word character (re)opens completion; anything else closes it.
  const QString typed = e->text();
  const bool wordChar = !typed.isEmpty() && (typed.back().isLetterOrNumber() ||
                                             typed.back() == '_' || typed.back() == '.');
  if (wordChar && !(e->modifiers() & (Qt::ControlModifier | Qt::AltModifier)))
    complete(false);
  else if (popup->isVisible() && e->key() != Qt::Key_Shift)
    popup->hide();
}

void CodeEditor::mouseReleaseEvent(QMouseEvent* e) {
  QPlainTextEdit::mouseReleaseEvent(e);
  if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)) {
    setTextCursor(cursorForPosition(e->pos()));
    goToDefinition();
  }
}

QStringList CodeEditor::complete(bool forced) {
  QAbstractItemView* popup = m_completer->popup();
  if (!m_compiler) {
    popup->hide();
    return {};
  }
  QTextCursor c = textCursor();
  const QString line = c.block().text();
  views::CompletionContext ctx = views::completionContext(line, c.positionInBlock());
  // Typing completes words of one character or more; Ctrl+Space also offers everything.
  if (ctx.kind == views::CompletionContext::None || (!forced && ctx.prefix.isEmpty())) {
    popup->hide();
    return {};
  }
  QStringList candidates = views::completions(m_compiler->registry(), ctx, line);
  if (candidates.isEmpty() || (!forced && candidates == QStringList{ctx.prefix})) {
    popup->hide();
    return candidates;
  }
  m_completionStart = ctx.prefixStart;
  m_completions->setStringList(candidates);
  m_completer->setCompletionPrefix(ctx.prefix);
  popup->setCurrentIndex(m_completer->completionModel()->index(0, 0));
  QRect r = cursorRect();
  r.setWidth(popup->sizeHintForColumn(0) + popup->verticalScrollBar()->sizeHint().width() + 8);
  m_completer->complete(r);
  return candidates;
}

void CodeEditor::insertCompletion(const QString& completion) {
  QTextCursor c = textCursor();
  int blockStart = c.block().position();
  c.setPosition(blockStart + m_completionStart, QTextCursor::KeepAnchor);
  c.insertText(completion);
  setTextCursor(c);
}

bool CodeEditor::findText(const QString& text, bool backward) {
  if (text.isEmpty())
    return false;
  QTextDocument::FindFlags flags;
  if (backward)
    flags |= QTextDocument::FindBackward;
  if (find(text, flags))
    return true;
  // Wrap around once.
  QTextCursor saved = textCursor();
  QTextCursor c(document());
  if (backward)
    c.movePosition(QTextCursor::End);
  setTextCursor(c);
  if (find(text, flags))
    return true;
  setTextCursor(saved);
  return false;
}

} // namespace cake::widgets
