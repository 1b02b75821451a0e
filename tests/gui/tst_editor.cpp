// Editor and findings panel tests (offscreen): a finding picked in the panel moves the editor
// cursor to its line:col and the shared selection to its op (the graph follows); go-to-definition
// of every kind of name (F12); completion of a primitive added at run time and of its attributes;
// squiggles, gutter hover text; the panel's filters, count, Enter, Ctrl+C, Explain and saved
// filter state.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/Actionable.h"
#include "cake/views/CompareData.h"
#include "cake/views/FindingsExport.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindBar.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/GoToLineBar.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/PerformanceView.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QToolTip>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtTest>

using namespace cake;

namespace {

const char* kMixed = "negative/accumulator-overwrite.cake"; // 4 blocking, 2 reports, 1 hint

int findingIndex(const views::CheckSnapshotPtr& snap, const char* code) {
  for (std::size_t i = 0; i < snap->result.diagnostics.size(); ++i)
    if (snap->result.diagnostics[i].code == code)
      return int(i);
  return -1;
}

LineColumn startOf(const views::CheckSnapshotPtr& snap, int finding) {
  const Diagnostic& d = snap->result.diagnostics[std::size_t(finding)];
  return snap->result.sources->lineColumn(d.range.file, d.range.begin);
}

} // namespace

class TestEditor : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void findingSelectsEditorAndViews() {
    views::SelectionModel sel;
    widgets::CodeEditor editor;
    widgets::FindingsPanel panel(&sel);
    widgets::GraphView graph(&sel);
    editor.setSelectionModel(&sel);
    editor.resize(700, 300); // shorter than the kernel: going to a finding must scroll
    editor.show();
    graph.resize(800, 600);
    graph.show();
    auto snap = test::corpusSnapshot(kMixed);
    editor.setPlainText(snap->text);
    sel.setSnapshot(snap);
    editor.setSnapshot(snap);
    panel.setSnapshot(snap);
    QSignalSpy shown(&graph, &widgets::GraphView::layoutShown);
    graph.setSnapshot(snap);
    QVERIFY(shown.wait(20000) || graph.shownSnapshot() == snap->jobId);

    QSignalSpy selected(&sel, &views::SelectionModel::selectionChanged);
    QSignalSpy activated(&panel, &widgets::FindingsPanel::findingActivated);
    for (const char* code : {"ps-async-pending-at-exit", "ps-async-overwrite"}) {
      int finding = findingIndex(snap, code);
      QVERIFY(finding >= 0);
      LineColumn at = startOf(snap, finding);
      QVERIFY(panel.selectFinding(finding));
      panel.view()->setFocus();
      QTest::keyClick(panel.view(), Qt::Key_Return);
      QCOMPARE(activated.count() > 0, true);
      QCOMPARE(activated.last().at(0).toInt(), finding);
      // Editor: cursor at the finding's line:col, scrolled into view.
      QCOMPARE(editor.cursorLine(), int(at.line));
      QCOMPARE(editor.cursorColumn(), int(at.column));
      QVERIFY(editor.cursorRect().top() >= 0 &&
              editor.cursorRect().bottom() <= editor.viewport()->height());
      // Shared selection: the finding and its op; the graph selects that op's node.
      QVERIFY(selected.count() > 0);
      QCOMPARE(selected.last().at(1).value<views::SelectionOrigin>(),
               views::SelectionOrigin::Findings);
      QCOMPARE(sel.current().finding, finding);
      QCOMPARE(sel.current().op, snap->views->findingOp[finding]);
      QVERIFY(sel.current().op >= 0);
      QVERIFY(graph.currentNode() >= 0);
      QCOMPARE(graph.graph()->nodes[graph.currentNode()].op, sel.current().op);
    }
    // The other way: a node picked in the graph moves the editor (not the findings selection).
    int node = -1;
    for (int i = 0; i < graph.graph()->nodes.size(); ++i)
      if (graph.graph()->nodes[i].op >= 0 && graph.graph()->nodes[i].op != sel.current().op)
        node = i;
    QVERIFY(node >= 0);
    graph.selectNode(node);
    QCOMPARE(editor.cursorLine(), snap->views->ops[graph.graph()->nodes[node].op].span.line);
    // Moving the cursor in the editor selects the op on that line.
    QSignalSpy fromEditor(&sel, &views::SelectionModel::selectionChanged);
    editor.goTo(snap->views->ops[0].span.line, 1, false);
    QCOMPARE(sel.current().op, 0);
    QCOMPARE(fromEditor.last().at(1).value<views::SelectionOrigin>(),
             views::SelectionOrigin::Editor);
  }

  void goToDefinition_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("use");  ///< text of the use on that line
    QTest::addColumn<QString>("name"); ///< the name under the cursor
    QTest::addColumn<int>("declLine");
    QTest::newRow("smem buffer") << kMixed << 34 << "a_s[ring"
                                 << "a_s" << 16;
    QTest::newRow("mbarrier") << kMixed << 33 << "full[ring"
                              << "full" << 18;
    QTest::newRow("role in on") << kMixed << 29 << "producer {"
                                << "producer" << 8;
    QTest::newRow("role in attribute") << kMixed << 19 << "consumer]"
                                       << "consumer" << 9;
    QTest::newRow("pipeline in member") << kMixed << 32 << "ring.slot"
                                        << "ring" << 10;
    QTest::newRow("pipeline in attribute") << kMixed << 31 << "ring {"
                                           << "ring" << 10;
    QTest::newRow("tensormap") << kMixed << 35 << "tB["
                               << "tB" << 15;
    QTest::newRow("param in attribute") << kMixed << 14 << "A swizzle"
                                        << "A" << 11;
    QTest::newRow("register tile") << kMixed << 45 << "acc,"
                                   << "acc" << 20;
    QTest::newRow("loop variable") << kMixed << 35 << "k * 64"
                                   << "k" << 31;
    QTest::newRow("const in const") << "ampere_gemm/gemm_cp_async.cake" << 17 << "BK"
                                    << "BK" << 16;
    QTest::newRow("declaration itself") << kMixed << 20 << "acc :"
                                        << "acc" << 20;
  }

  void goToDefinition() {
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(QString, use);
    QFETCH(QString, name);
    QFETCH(int, declLine);
    widgets::CodeEditor editor;
    editor.show();
    auto snap = test::corpusSnapshot(file);
    editor.setPlainText(snap->text);
    editor.setSnapshot(snap);
    QString text = editor.document()->findBlockByNumber(line - 1).text();
    int column = int(text.indexOf(use)) + 1;
    QVERIFY2(column > 0, qPrintable(text));
    editor.goTo(line, column + 1); // inside the name
    QTest::keyClick(&editor, Qt::Key_F12);
    QCOMPARE(editor.cursorLine(), declLine);
    QTextCursor word = editor.textCursor();
    word.select(QTextCursor::WordUnderCursor);
    QCOMPARE(word.selectedText(), name);
  }

  void goToDefinitionOfNothing() {
    widgets::CodeEditor editor;
    auto snap = test::corpusSnapshot(kMixed);
    editor.setPlainText(snap->text);
    editor.setSnapshot(snap);
    QSignalSpy status(&editor, &widgets::CodeEditor::statusMessage);
    editor.goTo(45, int(editor.document()->findBlockByNumber(44).text().indexOf("wgmma")) + 2);
    QVERIFY(!editor.goToDefinition()); // a primitive name is not a declared name
    QCOMPARE(editor.cursorLine(), 45);
    QVERIFY(status.last().at(0).toString().contains("no definition"));
  }

  /// F12 on a primitive name shows its registry entry (a primitive's definition is its file).
  void goToDefinitionOfAPrimitive() {
    widgets::CodeEditor editor;
    editor.show();
    editor.setCompiler(test::compiler());
    auto snap = test::corpusSnapshot(kMixed);
    editor.setPlainText(snap->text);
    editor.setSnapshot(snap);
    QSignalSpy status(&editor, &widgets::CodeEditor::statusMessage);
    int column = int(editor.document()->findBlockByNumber(44).text().indexOf("wgmma")) + 8; // in "mma"
    editor.goTo(45, column);
    QVERIFY(editor.goToDefinition());
    QCOMPARE(editor.cursorLine(), 45); // stays: the definition is shown, not jumped to
    QVERIFY2(editor.primitiveEntryShown().contains("<b>wgmma.mma</b>"), qPrintable(editor.primitiveEntryShown()));
    QVERIFY(editor.primitiveEntryShown().contains("attributes"));
    QVERIFY(status.last().at(0).toString().endsWith("wgmma.mma.json"));
  }

  void completionOfARunTimePrimitive() {
    QTemporaryDir dir;
    auto compiler = test::compilerWithAddedPrimitive(dir.path());
    QVERIFY(compiler);
    widgets::CodeEditor editor;
    editor.resize(600, 400);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.setCompiler(compiler);
    editor.setPlainText("kernel k target=sm_90a {\n  on r {\n    \n  }\n}\n");
    editor.goTo(3, 5);
    // Typing a prefix opens the popup with the registry's names, the new one included.
    QTest::keyClicks(&editor, "ew.sc");
    QAbstractItemView* popup = editor.completer()->popup();
    QVERIFY(popup->isVisible());
    QCOMPARE(editor.completer()->completionCount(), 1);
    QCOMPARE(editor.completer()->currentCompletion(), QStringLiteral("ew.scaled_fill"));
    QTest::keyClick(popup, Qt::Key_Return);
    QCOMPARE(editor.document()->findBlockByNumber(2).text(), QStringLiteral("    ew.scaled_fill"));
    // Ctrl+Space after its operand: its attributes.
    QTest::keyClicks(&editor, " acc ");
    QTest::keyClick(&editor, Qt::Key_Space, Qt::ControlModifier);
    QVERIFY(popup->isVisible());
    QStringList offered;
    for (int i = 0; i < editor.completer()->completionCount(); ++i) {
      editor.completer()->setCurrentRow(i);
      offered << editor.completer()->currentCompletion();
    }
    QCOMPARE(offered, QStringList({"scale=", "value="}));
    QTest::keyClick(popup, Qt::Key_Escape);
    QVERIFY(!popup->isVisible());
    // The bundled registry does not know it.
    editor.setCompiler(test::compiler());
    editor.goTo(3, 14);
    QVERIFY(!editor.complete(true).contains("ew.scaled_fill"));
  }

  void squigglesAndHover() {
    widgets::CodeEditor editor;
    auto snap = test::corpusSnapshot(kMixed);
    editor.setPlainText(snap->text);
    editor.setSnapshot(snap);
    QCOMPARE(editor.marks().size(), int(snap->result.diagnostics.size()));
    const QList<QTextEdit::ExtraSelection> sels = editor.extraSelections();
    QCOMPARE(sels.size(), editor.marks().size());
    for (int i = 0; i < sels.size(); ++i) {
      const Diagnostic& d = snap->result.diagnostics[std::size_t(i)];
      QCOMPARE(sels[i].format.underlineStyle(), QTextCharFormat::WaveUnderline);
      QVERIFY(sels[i].cursor.hasSelection());
      LineColumn b = snap->result.sources->lineColumn(d.range.file, d.range.begin);
      QCOMPARE(sels[i].cursor.block().blockNumber() + 1, int(b.line));
      QCOMPARE(sels[i].cursor.selectionStart() - sels[i].cursor.block().position() + 1,
               int(b.column));
    }
    // Colour by severity: every blocking squiggle shares one colour, distinct from the hint's.
    int blocking = findingIndex(snap, "ps-async-overwrite"),
        hint = findingIndex(snap, "perf-unused");
    QVERIFY(sels[blocking].format.underlineColor() != sels[hint].format.underlineColor());
    QCOMPARE(sels[findingIndex(snap, "ps-async-pending-at-exit")].format.underlineColor(),
             sels[blocking].format.underlineColor());
    // Hover: over the range, or anywhere on the line in the gutter; notes and fix included.
    LineColumn at = startOf(snap, blocking);
    QString hover = editor.hoverText(int(at.line), int(at.column) + 1, false);
    QVERIFY(hover.contains("[ps-async-overwrite]"));
    QVERIFY(hover.contains("note:"));
    QVERIFY(hover.contains("fix:"));
    QVERIFY(editor.hoverText(int(at.line), 1, false).isEmpty()); // indentation, before the range
    QVERIFY(editor.hoverText(int(at.line), 1, true).contains("[ps-async-overwrite]"));
    QVERIFY(editor.hoverText(2, 1, true).isEmpty());
    // The same through real tooltip events: over the squiggle, and over the gutter's line number.
    editor.resize(900, 500);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.goTo(int(at.line), int(at.column) + 1, false);
    QPoint inText = editor.cursorRect().center();
    QHelpEvent overText(QEvent::ToolTip, inText, editor.viewport()->mapToGlobal(inText));
    QApplication::sendEvent(editor.viewport(), &overText);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY(QToolTip::text().contains("[ps-async-overwrite]"));
    QToolTip::hideText();
    QTRY_VERIFY(!QToolTip::isVisible());
    QPoint inGutterOfEditor(4, editor.viewport()->mapToParent(inText).y());
    QWidget* gutter = editor.childAt(inGutterOfEditor);
    QVERIFY(gutter && gutter != editor.viewport());
    QPoint inGutter = gutter->mapFrom(&editor, inGutterOfEditor);
    QHelpEvent overGutter(QEvent::ToolTip, inGutter, gutter->mapToGlobal(inGutter));
    QApplication::sendEvent(gutter, &overGutter);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY(QToolTip::text().contains("[ps-async-overwrite]"));
    QToolTip::hideText();
    // A clean kernel clears them (the Hopper GEMM has a coverage report since its wgmma
    // register budget is a stated gap; the RMSNorm kernel has no finding at all).
    editor.setSnapshot(test::corpusSnapshot("rmsnorm/rmsnorm.cake"));
    QVERIFY(editor.marks().isEmpty());
    QVERIFY(editor.extraSelections().size() == editor.marks().size());
  }

  void findBarIsNonModal() {
    // B23: Find was a modal dialog. The bar counts the matches, steps with Enter / Shift+Enter
    // and the arrows, wraps, leaves the text editable, and Esc gives the editor the focus back.
    QWidget pane;
    auto* layout = new QVBoxLayout(&pane);
    auto* editor = new widgets::CodeEditor;
    auto* bar = new widgets::FindBar(editor);
    layout->addWidget(editor);
    layout->addWidget(bar);
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    editor->setPlainText(snap->text);
    const int expected = int(snap->text.count("mbarrier", Qt::CaseInsensitive));
    QVERIFY(expected > 3);
    pane.resize(800, 500);
    pane.show();
    pane.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&pane));
    QVERIFY(!bar->isVisible());
    editor->goTo(1, 1);
    bar->open();
    QVERIFY(bar->isVisible());
    QTRY_VERIFY(bar->field()->hasFocus());
    QTest::keyClicks(bar->field(), "mbarrier");
    QCOMPARE(bar->matchCount(), expected);
    QCOMPARE(bar->currentMatch(), 1); // incremental: the first match is already selected
    QCOMPARE(bar->countText(), QStringLiteral("1 of %1").arg(expected));
    QCOMPARE(editor->textCursor().selectedText(), QStringLiteral("mbarrier"));
    const int firstLine = editor->cursorLine();
    QCOMPARE(firstLine, int(snap->text.left(snap->text.indexOf("mbarrier", 0, Qt::CaseInsensitive))
                                .count(QLatin1Char(10))) +
                            1);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(bar->currentMatch(), 2);
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(bar->currentMatch(), 1);
    QCOMPARE(editor->cursorLine(), firstLine);
    // Previous from the first wraps to the last.
    bar->findChild<QToolButton*>("findPrevious")->click();
    QCOMPARE(bar->currentMatch(), expected);
    bar->findChild<QToolButton*>("findNext")->click();
    QCOMPARE(bar->currentMatch(), 1);
    // The text stays editable with the bar open; the count follows the edit.
    QTextCursor end(editor->document());
    end.movePosition(QTextCursor::End);
    end.insertText("\n// mbarrier\n");
    QCOMPARE(bar->matchCount(), expected + 1);
    // No match: said so, the arrows disabled.
    bar->field()->selectAll();
    QTest::keyClicks(bar->field(), "no-such-text-anywhere");
    QCOMPARE(bar->matchCount(), 0);
    QCOMPARE(bar->countText(), QStringLiteral("no match"));
    QVERIFY(!bar->findChild<QToolButton*>("findNext")->isEnabled());
    // Esc closes it and the editor has the focus.
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
    QTRY_VERIFY(editor->hasFocus());
    // Reopened on a one-line selection: that text is the search.
    editor->goTo(firstLine, 1);
    QVERIFY(editor->find("wgmma"));
    bar->open();
    QCOMPARE(bar->text(), QStringLiteral("wgmma"));
    QCOMPARE(bar->matchCount(), int(editor->toPlainText().count("wgmma", Qt::CaseInsensitive)));
    const int before = int(editor->toPlainText()
                               .left(editor->textCursor().selectionStart())
                               .count("wgmma", Qt::CaseInsensitive));
    QCOMPARE(bar->currentMatch(), before + 1);
    QCOMPARE(bar->countText(), QStringLiteral("%1 of %2").arg(before + 1).arg(bar->matchCount()));
  }
  void goToLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("line") << "12" << true << 12 << 1;
    QTest::newRow("line:column") << "12:5" << true << 12 << 5;
    QTest::newRow("spaces") << " 7 : 3 " << true << 7 << 3;
    QTest::newRow("first") << "1" << true << 1 << 1;
    QTest::newRow("last") << "LAST" << true << -1 << 1;
    QTest::newRow("past the end") << "PAST" << false << 0 << 0;
    QTest::newRow("zero") << "0" << false << 0 << 0;
    QTest::newRow("column zero") << "3:0" << false << 0 << 0;
    QTest::newRow("negative") << "-4" << false << 0 << 0;
    QTest::newRow("word") << "main" << false << 0 << 0;
    QTest::newRow("empty") << "" << false << 0 << 0;
    QTest::newRow("huge") << "99999999999" << false << 0 << 0;
  }
  void goToLine() {
    // B23 / item 10: Ctrl+L's bar moves the cursor, and with it the shared selection every view
    // follows; a bad line keeps the bar open and says the valid range.
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(int, line);
    QFETCH(int, column);
    views::SelectionModel sel;
    QWidget pane;
    auto* layout = new QVBoxLayout(&pane);
    auto* editor = new widgets::CodeEditor;
    auto* bar = new widgets::GoToLineBar(editor);
    layout->addWidget(editor);
    layout->addWidget(bar);
    editor->setSelectionModel(&sel);
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    editor->setPlainText(snap->text);
    sel.setSnapshot(snap);
    editor->setSnapshot(snap);
    pane.resize(800, 400);
    pane.show();
    pane.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&pane));
    const int lines = editor->document()->blockCount();
    text.replace("LAST", QString::number(lines)).replace("PAST", QString::number(lines + 1));
    if (line == -1)
      line = lines;
    editor->goTo(2, 1);
    bar->open();
    QCOMPARE(bar->field()->text(), QStringLiteral("2"));
    QTRY_VERIFY(bar->field()->hasFocus());
    bar->field()->clear();
    QTest::keyClicks(bar->field(), text);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(!bar->isVisible(), ok);
    if (!ok) {
      QCOMPARE(editor->cursorLine(), 2);
      QVERIFY(bar->findChild<QLabel*>("goToLineHint")->text().contains(QString::number(lines)));
      QTest::keyClick(bar->field(), Qt::Key_Escape);
      QVERIFY(!bar->isVisible());
      QCOMPARE(editor->cursorLine(), 2);
      return;
    }
    QCOMPARE(editor->cursorLine(), line);
    QCOMPARE(editor->cursorColumn(),
             qMin(column, editor->document()->findBlockByNumber(line - 1).length()));
    QTRY_VERIFY(editor->hasFocus());
    // On an operation's line, that operation is the shared selection (the views follow it).
    const views::OpView& op = snap->views->ops[snap->views->ops.size() / 2];
    bar->open();
    bar->field()->setText(QString::number(op.span.line));
    QVERIFY(bar->accept());
    QCOMPARE(editor->cursorLine(), op.span.line);
    QVERIFY(sel.current().op >= 0);
    QCOMPARE(snap->views->ops[sel.current().op].span.line, op.span.line);
  }
  void explainIsWrappedProse() {
    // B15: Explain appended the rule as one <pre>: monospace, unwrapped, a horizontal scroll in
    // a 290 px pane. The prose is now paragraphs in the UI font and the examples wrap.
    views::SelectionModel sel;
    widgets::FindingsPanel panel(&sel);
    panel.setCompiler(test::compiler());
    auto snap = test::corpusSnapshot(kMixed);
    sel.setSnapshot(snap);
    panel.setSnapshot(snap);
    panel.resize(700, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* detail = panel.findChild<QTextBrowser*>("findingDetail");
    auto* split = qobject_cast<QSplitter*>(detail->parentWidget());
    QVERIFY(split);
    split->setSizes({410, 290});
    QVERIFY(panel.selectFinding(findingIndex(snap, "ps-async-overwrite")));
    QString text = panel.explainCurrent();
    QVERIFY(!text.isEmpty());
    QCoreApplication::processEvents();
    QVERIFY(detail->width() <= 300);
    QCOMPARE(detail->horizontalScrollBar()->maximum(), 0);
    const QString html = views::explainHtml(*test::compiler(), "ps-async-overwrite");
    const verify::Rule* rule = test::compiler()->rules().find("ps-async-overwrite");
    QVERIFY(rule && !rule->doc.empty());
    // The documentation's first sentence sits in a paragraph, not in a code block.
    QString firstWords = QString::fromStdString(rule->doc).section(' ', 0, 4).toHtmlEscaped();
    int at = html.indexOf(firstWords);
    QVERIFY(at > 0);
    QVERIFY(html.lastIndexOf("<p>", at) > html.lastIndexOf("<pre", at));
    QVERIFY(html.contains("white-space: pre-wrap"));
    // Its text reaches the pane.
    QVERIFY(panel.detailText().contains(QString::fromStdString(rule->title)));
  }
  void applyFixThenUndo() {
    // B19: a finding's fix that carries its edit gets "Apply"; the edit goes through the
    // editor's undo stack (one step), the re-check shows the Δ, Undo restores every byte.
    // A comment with multi-byte characters before the fix checks the byte → position mapping.
    QString text = test::readFile(test::corpusPath("negative/wait-cycle.cake"));
    text.prepend(QStringLiteral("// µs ✓ — ½\n"));
    auto snap = test::snapshotOf("wait-cycle.cake", text);
    const int finding = findingIndex(snap, "ps-wait-cycle");
    QVERIFY(finding >= 0);
    const QList<views::TextReplacement> edits = views::fixReplacements(*snap, finding);
    QCOMPARE(edits.size(), 1);
    views::SelectionModel sel;
    widgets::FindingsPanel panel(&sel);
    sel.setSnapshot(snap);
    panel.setSnapshot(snap);
    QVERIFY(panel.selectFinding(finding));
    auto* detail = panel.findChild<QTextBrowser*>("findingDetail");
    QVERIFY(detail->toHtml().contains(QStringLiteral("apply:%1").arg(finding)));
    QSignalSpy applyAsked(&panel, &widgets::FindingsPanel::applyFixRequested);
    Q_EMIT detail->anchorClicked(QUrl(QStringLiteral("apply:%1").arg(finding)));
    QCOMPARE(applyAsked.count(), 1);
    QCOMPARE(applyAsked.last().at(0).toInt(), finding);
    // A finding whose fix is a message only has no Apply.
    for (std::size_t i = 0; i < snap->result.diagnostics.size(); ++i)
      if (!snap->result.diagnostics[i].fix || !snap->result.diagnostics[i].fix->range.valid())
        QVERIFY(views::fixReplacements(*snap, int(i)).isEmpty());

    widgets::CodeEditor editor;
    editor.setPlainText(text);
    editor.document()->setModified(false);
    QVERIFY(!editor.document()->isUndoAvailable());
    QVERIFY(editor.applyReplacements(snap->text, edits));
    const QString fixed = editor.toPlainText();
    // The same bytes replaced as the compiler's range says.
    QByteArray expected = text.toUtf8();
    expected.replace(int(edits[0].begin), int(edits[0].end - edits[0].begin),
                     edits[0].text.toUtf8());
    QCOMPARE(fixed.toUtf8(), expected);
    QVERIFY(fixed.startsWith(QStringLiteral("// µs ✓ — ½\n")));
    auto after = test::snapshotOf("wait-cycle.cake", fixed, 2);
    QCOMPARE(findingIndex(after, "ps-wait-cycle"), -1);
    views::ApplyFigures before = views::figuresOf(*snap, nullptr),
                        now = views::figuresOf(*after, nullptr);
    QVERIFY(now.blocking < before.blocking);
    QString delta = views::applyDelta(before, now);
    QVERIFY2(delta.startsWith(QStringLiteral("findings %1 → %2, blocking %3 → %4")
                                  .arg(before.findings)
                                  .arg(now.findings)
                                  .arg(before.blocking)
                                  .arg(now.blocking)),
             qPrintable(delta));
    // One undo step restores the text byte for byte; redo re-applies it.
    editor.undo();
    QCOMPARE(editor.toPlainText().toUtf8(), text.toUtf8());
    QVERIFY(!editor.document()->isUndoAvailable());
    editor.redo();
    QCOMPARE(editor.toPlainText(), fixed);
    // Stale: the text was edited since the check; nothing is applied.
    editor.setPlainText(text + QStringLiteral("\n"));
    QVERIFY(!editor.applyReplacements(snap->text, edits));
    QCOMPARE(editor.toPlainText(), text + QStringLiteral("\n"));
    // Overlapping or out-of-range edits are refused whole.
    editor.setPlainText(text);
    QVERIFY(!editor.applyReplacements(text, {{4, 10, "a"}, {8, 12, "b"}}));
    QVERIFY(!editor.applyReplacements(text, {{0, quint32(text.toUtf8().size()) + 1, "x"}}));
    QCOMPARE(editor.toPlainText(), text);
  }
  void applyHintThenUndo() {
    // B19: a cost hint with edits gets "Apply" beside "Try"; applied in the editor it gives
    // exactly the child kernel Try compares (views::withEdits), and Undo restores the parent.
    auto snap = test::corpusSnapshot("flash_kmeans/assign.cake");
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    QVERIFY(cost->estimate);
    views::SelectionModel sel;
    sel.setSnapshot(snap);
    widgets::PerformanceView perf(&sel);
    perf.setCheck(snap);
    perf.setCost(cost);
    auto* hints = perf.findChild<QTextBrowser*>("performanceHints");
    QVERIFY(hints);
    QSignalSpy applyAsked(&perf, &widgets::PerformanceView::applyHint);
    int applied = 0;
    for (std::size_t i = 0; i < cost->estimate->hints.size(); ++i) {
      const cost::Hint& h = cost->estimate->hints[i];
      QCOMPARE(hints->toHtml().contains(QStringLiteral("apply:%1").arg(i)), !h.edits.empty());
      if (h.edits.empty())
        continue;
      Q_EMIT hints->anchorClicked(QUrl(QStringLiteral("apply:%1").arg(i)));
      QCOMPARE(applyAsked.count(), applied + 1);
      QCOMPARE(applyAsked.last().at(1).toInt(), int(i));
      widgets::CodeEditor editor;
      editor.setPlainText(snap->text);
      QVERIFY(editor.applyReplacements(snap->text, views::hintReplacements(h)));
      QCOMPARE(editor.toPlainText(), views::withEdits(snap->text, h.edits));
      QVERIFY(editor.toPlainText() != snap->text);
      editor.undo();
      QCOMPARE(editor.toPlainText().toUtf8(), snap->text.toUtf8());
      ++applied;
    }
    QVERIFY2(applied > 0, "no hint with edits on the Flash-KMeans assign kernel");
    // The Δ names the predicted time when both sides are costed.
    views::ApplyFigures a = views::figuresOf(*snap, cost.get());
    QVERIFY(a.costed && a.predictedUs > 0);
    views::ApplyFigures b = a;
    b.predictedUs = a.predictedUs * 0.9;
    QVERIFY2(views::applyDelta(a, b).contains(QStringLiteral("(−10.0 %)")),
             qPrintable(views::applyDelta(a, b)));
  }
  void panelFiltersCopyAndExplain() {
    views::SelectionModel sel;
    widgets::FindingsPanel panel(&sel);
    panel.resize(900, 300);
    panel.show();
    panel.setCompiler(test::compiler());
    auto snap = test::corpusSnapshot(kMixed);
    sel.setSnapshot(snap);
    panel.setSnapshot(snap);
    auto* count = panel.findChild<QLabel*>("findingsCount");
    QCOMPARE(count->text(), QStringLiteral("7 of 7 shown"));
    // Filters through the widgets.
    panel.findChild<QCheckBox*>("showBlocking")->click();
    QCOMPARE(count->text(), QStringLiteral("3 of 7 shown"));
    QComboBox* family = panel.findChild<QComboBox*>("familyFilter");
    QCOMPARE(family->count(), 4); // all, hardware-conformance, performance, program-safety
    family->setCurrentIndex(family->findData("performance"));
    Q_EMIT family->activated(family->currentIndex());
    panel.findChild<QLineEdit*>("findingsSearch")->setText("unused");
    QCOMPARE(count->text(), QStringLiteral("1 of 7 shown"));
    QVariantMap state = panel.filterState();
    QCOMPARE(state.value("blocking").toBool(), false);
    QCOMPARE(state.value("family").toString(), QStringLiteral("performance"));
    QCOMPARE(state.value("text").toString(), QStringLiteral("unused"));
    // Restored filters apply to a new panel (QSettings round trip of the window).
    widgets::FindingsPanel other(&sel);
    other.setFilterState(state);
    other.setSnapshot(snap);
    QCOMPARE(other.countText(), QStringLiteral("1 of 7 shown"));
    QCOMPARE(other.filterState(), state);
    panel.setFilterState({});
    QCOMPARE(count->text(), QStringLiteral("7 of 7 shown"));

    // Ctrl+C copies the selection as the CLI's text; the copy menu's formats parse.
    int finding = findingIndex(snap, "ps-async-overwrite");
    QVERIFY(panel.selectFinding(finding));
    panel.view()->setFocus();
    QApplication::clipboard()->clear();
    QTest::keyClick(panel.view(), Qt::Key_C, Qt::ControlModifier);
    QString copied = QApplication::clipboard()->text();
    QVERIFY2(copied.contains("error[ps-async-overwrite]"), qPrintable(copied));
    QVERIFY(!copied.contains("ps-cross-role-race"));
    std::vector<std::size_t> one{std::size_t(finding)};
    QCOMPARE(panel.selectedFindings(), one);
    QCOMPARE(copied,
             views::exportFindings(*test::compiler(), *snap, &one, views::FindingsFormat::Text));
    QJsonDocument json =
        QJsonDocument::fromJson(panel.exportText(views::FindingsFormat::Json, true).toUtf8());
    QCOMPARE(
        json.object().value("files").toArray().at(0).toObject().value("findings").toArray().size(),
        7);
    // Explain: the rule's documentation in the detail pane, as `cake explain` prints it.
    QString explained = panel.explainCurrent();
    QCOMPARE(explained, views::explainCode(*test::compiler(), "ps-async-overwrite"));
    QVERIFY(panel.detailText().contains(explained.section('\n', 1, 1).trimmed()));
    // The detail pane lists the notes with their locations and the fix.
    const Diagnostic& d = snap->result.diagnostics[std::size_t(finding)];
    QVERIFY(panel.detailText().contains(QString::fromStdString(d.notes[0].message)));
    QVERIFY(panel.detailText().contains(QString::fromStdString(d.fix->message)));
    // A finding picked in another view becomes the current row.
    int other2 = findingIndex(snap, "perf-unused");
    sel.selectFinding(other2, views::SelectionOrigin::Timeline);
    QCOMPARE(panel.view()->currentIndex().data(views::FindingsModel::FindingRole).toInt(), other2);
  }
};

QTEST_MAIN(TestEditor)
#include "tst_editor.moc"
