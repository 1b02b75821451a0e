// B8: a transient syntax error keeps the last good results. A corpus kernel is typed into
// through QTest key events with the views wired as the workbench wires them (editor → compile
// session → LastGoodCheck → views under stale banners): `wgmma.` on a new line leaves every
// view on the previous check with a banner naming the error's line:col; completing the word
// brings the views up to date and the banners go.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/LastGoodCheck.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/GraphView.h"
#include "cake/widgets/LoweredCodeView.h"
#include "cake/widgets/MemoryLayoutView.h"
#include "cake/widgets/PerformanceView.h"
#include "cake/widgets/StaleBanner.h"
#include "cake/widgets/TimelineView.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTextBlock>
#include <QtTest>

using namespace cake;

namespace {

/// The workbench's views of one check, each under its stale banner.
struct Bench {
  views::CompileSession session;
  views::LastGoodCheck lastGood;
  views::SelectionModel selection;
  widgets::CodeEditor editor;
  // Owned by their banner boxes (deleted first, in ~Bench).
  widgets::FindingsPanel& findings = *new widgets::FindingsPanel(&selection);
  widgets::GraphView& graph = *new widgets::GraphView(&selection);
  widgets::MemoryLayoutView& layout = *new widgets::MemoryLayoutView(&selection);
  widgets::TimelineView& timeline = *new widgets::TimelineView(&selection);
  widgets::PerformanceView& performance = *new widgets::PerformanceView(&selection);
  widgets::LoweredCodeView& code = *new widgets::LoweredCodeView(&selection);
  QList<QWidget*> boxes;
  views::CheckSnapshotPtr delivered; ///< the newest check the session delivered

  Bench() {
    editor.setSelectionModel(&selection);
    for (QWidget* view :
         QList<QWidget*>{&findings, &graph, &layout, &timeline, &performance, &code}) {
      QWidget* box = widgets::StaleBanner::wrap(view, &lastGood);
      box->resize(640, 420);
      box->show();
      boxes << box;
    }
    QObject::connect(&editor, &QPlainTextEdit::textChanged, &session, [this] {
      session.requestCheck(QStringLiteral("gemm_ws.cake"), editor.toPlainText());
    });
    QObject::connect(&session, &views::CompileSession::checkFinished, &lastGood,
                     [this](const views::CheckSnapshotPtr& s) {
                       delivered = s;
                       editor.setSnapshot(s);
                       lastGood.submit(s);
                     });
    QObject::connect(&lastGood, &views::LastGoodCheck::checkShown, &graph,
                     [this](const views::CheckSnapshotPtr& s) {
                       selection.setSnapshot(s);
                       findings.setSnapshot(s);
                       graph.setSnapshot(s);
                       layout.setSnapshot(s);
                       timeline.setSnapshot(s);
                       performance.setCheck(s);
                       code.setCheck(s);
                     });
    QObject::connect(&session, &views::CompileSession::costFinished, &performance,
                     &widgets::PerformanceView::setCost);
  }
  ~Bench() { qDeleteAll(boxes); }

  /// The session has checked exactly the editor's text.
  bool checkedCurrentText() const { return delivered && delivered->text == editor.toPlainText(); }
  QList<widgets::StaleBanner*> banners() const {
    QList<widgets::StaleBanner*> all;
    for (QWidget* box : boxes)
      all << widgets::StaleBanner::of(box);
    return all;
  }
};

} // namespace

class TestStale : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void brokenAtNamesSyntaxAndTypeErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("broken");
    QTest::addColumn<bool>("syntax");
    QTest::addColumn<int>("line");
    QString good = test::readFile(test::corpusPath(QStringLiteral("hopper_gemm/gemm_ws.cake")));
    QStringList lines = good.split(QLatin1Char('\n'));
    QTest::newRow("valid") << good << false << false << 0;
    QStringList typing = lines;
    typing.insert(73, QStringLiteral("        wgmma."));
    QTest::newRow("partial op, line 74") << typing.join('\n') << true << true << 74;
    QStringList unknown = lines;
    unknown.insert(73, QStringLiteral("        wgmma.commit_all"));
    QTest::newRow("unknown primitive, line 74") << unknown.join('\n') << true << false << 74;
    // A kernel the verifier refuses parsed and type-checked: it is a result, not stale.
    QString refused =
        test::readFile(test::corpusPath(QStringLiteral("negative/accumulator-overwrite.cake")));
    QTest::newRow("refused by the verifier") << refused << false << false << 0;
  }
  void brokenAtNamesSyntaxAndTypeErrors() {
    QFETCH(QString, text);
    QFETCH(bool, broken);
    QFETCH(bool, syntax);
    QFETCH(int, line);
    auto at = views::brokenAt(*test::snapshotOf(QStringLiteral("k.cake"), text));
    QCOMPARE(at.has_value(), broken);
    if (!broken)
      return;
    QCOMPARE(at->syntax, syntax);
    QCOMPARE(at->line, line);
    QVERIFY(at->column >= 1);
    QVERIFY(at->text().contains(QStringLiteral("%1:%2").arg(at->line).arg(at->column)));
  }

  void lastGoodOnlyWithinOneFile() {
    views::LastGoodCheck lg;
    QSignalSpy shown(&lg, &views::LastGoodCheck::checkShown);
    QSignalSpy stale(&lg, &views::LastGoodCheck::staleChanged);
    QString good = test::readFile(test::corpusPath(QStringLiteral("hopper_gemm/gemm_ws.cake")));
    lg.submit(test::snapshotOf(QStringLiteral("a.cake"), QStringLiteral("kernel {\n"), 1));
    // Nothing good to keep: the broken check is shown, not stale.
    QCOMPARE(shown.count(), 1);
    QVERIFY(!lg.isStale());
    lg.submit(test::snapshotOf(QStringLiteral("a.cake"), good, 2));
    QCOMPARE(lg.shownJob(), quint64(2));
    lg.submit(test::snapshotOf(QStringLiteral("a.cake"), good + QStringLiteral("\n}"), 3));
    QCOMPARE(lg.shownJob(), quint64(2));
    QVERIFY(lg.isStale());
    QCOMPARE(stale.count(), 1);
    QVERIFY(stale.last().at(0).toBool());
    // Another file: its broken check is shown (the last good one is of another kernel).
    lg.submit(test::snapshotOf(QStringLiteral("b.cake"), QStringLiteral("kernel {\n"), 4));
    QCOMPARE(lg.shownJob(), quint64(4));
    QVERIFY(!lg.isStale());
    lg.submit(test::snapshotOf(QStringLiteral("b.cake"), good, 5));
    lg.reset();
    QCOMPARE(lg.shownJob(), quint64(0));
    lg.submit(test::snapshotOf(QStringLiteral("b.cake"), QStringLiteral("kernel {\n"), 6));
    QCOMPARE(lg.shownJob(), quint64(6));
  }

  void typingThroughASyntaxErrorKeepsTheViews() {
    Bench b;
    QSignalSpy ready(&b.session, &views::CompileSession::compilerReady);
    b.session.start(test::dataPaths());
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    b.editor.setCompiler(b.session.compiler());
    b.editor.resize(800, 600);
    b.editor.show();
    QString good = test::readFile(test::corpusPath(QStringLiteral("hopper_gemm/gemm_ws.cake")));
    QVERIFY(!good.isEmpty());
    b.editor.setPlainText(good);
    QTRY_VERIFY_WITH_TIMEOUT(b.checkedCurrentText(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!b.graph.layoutPending() && b.performance.cost(), 60000);
    const quint64 goodJob = b.lastGood.shownJob();
    QCOMPARE(b.delivered->jobId, goodJob);
    QVERIFY(b.delivered->result.accepted);
    const int nodes = int(b.graph.graph()->nodes.size());
    const views::TimelineData* timeline = b.timeline.data();
    QVERIFY(timeline);
    const int buffers = b.layout.buffersModel()->rowCount();
    const int findings = b.findings.model()->rowCount();
    const QString perfStatus = b.performance.statusText();
    const QString codeStatus = b.code.statusText();
    for (widgets::StaleBanner* banner : b.banners())
      QVERIFY(!banner->isVisible());

    // `wgmma.` typed on a new line after line 73 ("wgmma.commit").
    QTextCursor cursor(b.editor.document()->findBlockByNumber(72));
    cursor.movePosition(QTextCursor::EndOfBlock);
    b.editor.setTextCursor(cursor);
    b.editor.setFocus();
    QTest::keyClick(&b.editor, Qt::Key_Return);
    QTest::keyClicks(&b.editor, QStringLiteral("wgmma."));
    QTest::keyClick(&b.editor, Qt::Key_Escape); // the completion popup
    QCOMPARE(b.editor.document()->findBlockByNumber(73).text().trimmed(), QStringLiteral("wgmma."));
    QTRY_VERIFY_WITH_TIMEOUT(b.checkedCurrentText(), 30000);
    QVERIFY(!b.delivered->result.accepted);
    QVERIFY(b.lastGood.isStale());
    // Every view still shows the previous check.
    QCOMPARE(b.lastGood.shownJob(), goodJob);
    QCOMPARE(b.graph.shownSnapshot(), goodJob);
    QVERIFY(!b.graph.layoutPending());
    QCOMPARE(int(b.graph.graph()->nodes.size()), nodes);
    QCOMPARE(b.timeline.data(), timeline);
    QCOMPARE(b.layout.buffersModel()->rowCount(), buffers);
    QCOMPARE(b.findings.model()->rowCount(), findings);
    QCOMPARE(b.findings.model()->snapshot()->jobId, goodJob);
    QCOMPARE(b.performance.shownCheck(), goodJob);
    QCOMPARE(b.performance.statusText(), perfStatus);
    QCOMPARE(b.code.statusText(), codeStatus);
    QCOMPARE(b.selection.snapshot()->jobId, goodJob);
    // The banner of each view names the location; its link goes to the same place.
    QRegularExpression where(QStringLiteral("^stale — syntax error at (\\d+):(\\d+)$"));
    for (widgets::StaleBanner* banner : b.banners()) {
      QVERIFY(banner->isVisible());
      QRegularExpressionMatch m = where.match(banner->accessibleName());
      QVERIFY2(m.hasMatch(), qPrintable(banner->accessibleName()));
      QCOMPARE(m.captured(1).toInt(), 74);
      // On the typed word (the editor does not indent a new line): columns 1..7.
      QVERIFY2(m.captured(2).toInt() >= 1 && m.captured(2).toInt() <= 7, qPrintable(m.captured(2)));
      QVERIFY(banner->text().contains(QStringLiteral("href=\"loc:74:%1\"").arg(m.captured(2))));
    }

    // Finishing the word makes the text valid again: the views follow, the banners go.
    QTest::keyClicks(&b.editor, QStringLiteral("commit"));
    QTest::keyClick(&b.editor, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(b.checkedCurrentText(), 30000);
    QVERIFY2(!b.lastGood.isStale(), qPrintable(b.lastGood.bannerText()));
    QCOMPARE(b.lastGood.shownJob(), b.delivered->jobId);
    QTRY_VERIFY_WITH_TIMEOUT(!b.graph.layoutPending(), 60000);
    QCOMPARE(b.graph.shownSnapshot(), b.delivered->jobId);
    QCOMPARE(int(b.graph.graph()->nodes.size()), nodes + 1);
    QVERIFY(b.timeline.data() != timeline);
    QCOMPARE(b.findings.model()->snapshot()->jobId, b.delivered->jobId);
    for (widgets::StaleBanner* banner : b.banners()) {
      QVERIFY(!banner->isVisible());
      QVERIFY(banner->accessibleName().isEmpty() || banner->text().isEmpty());
    }
  }
};

QTEST_MAIN(TestStale)
#include "tst_stale.moc"
