// The performance, lowered-code and jobs widgets offscreen: every positive corpus kernel
// (corpus/manifest.json) renders both views to a non-blank image; the code view links IR and
// lowered lines both ways through the shared selection; a refused kernel says why.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/JobsModel.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/PerformanceData.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/JobsView.h"
#include "cake/widgets/LoweredCodeView.h"
#include "cake/widgets/PerformanceView.h"
#include "cake/widgets/Plot.h"

#include <QCheckBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTextBlock>
#include <QtTest>

using namespace cake;

namespace {

int colourCount(const QImage& img) {
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 5)
    for (int x = 0; x < img.width(); x += 5)
      colours.insert(img.pixel(x, y));
  return int(colours.size());
}

QStringList positiveCorpus() {
  QStringList out;
  QFile f(test::corpusPath(QStringLiteral("manifest.json")));
  if (!f.open(QIODevice::ReadOnly))
    return out;
  for (const QJsonValue& c : QJsonDocument::fromJson(f.readAll()).object().value("cases").toArray())
    if (c.toObject().value("expect").toObject().value("accepted").toBool())
      out << c.toObject().value("path").toString();
  return out;
}

} // namespace

class TestPerfViews : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void everySegmentOfAStackedBarSelects() {
    // B7: only the bottom ("pipe busy") segment of a stacked per-operation bar reacted to a
    // click, and the selected operation was never marked on the chart. Every segment (and the
    // value label) of a row selects its operation now, and the selection, from any view, is
    // highlighted on the bars.
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::PerformanceView perf(&selection);
    perf.resize(1100, 700);
    perf.show();
    QVERIFY(QTest::qWaitForWindowExposed(&perf));
    perf.setCheck(snap);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    perf.setCost(cost);
    QVERIFY(cost->data.ok);
    QCoreApplication::processEvents();
    widgets::Plot* bars = perf.opBars();
    QCOMPARE(bars->highlightedCategory(), -1);
    int clicked = 0, upper = 0;
    for (int row = 0; row < cost->data.ops.size(); ++row)
      for (int series = 0; series < 2; ++series) {
        QRectF r = bars->segmentRect(row, series);
        if (r.width() < 3 || r.height() < 3)
          continue; // too thin to aim at
        selection.selectOp(-1, -1, views::SelectionOrigin::Graph);
        QTest::mouseClick(bars->canvas(), Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(selection.current().op, cost->data.ops[row].op);
        QCOMPARE(bars->highlightedCategory(), row);
        ++clicked;
        upper += series == 1;
      }
    QVERIFY(clicked >= 4);
    QVERIFY2(upper >= 1, "no upper segment wide enough to click in the Hopper GEMM");
    // Between two rows and left of the axis: nothing.
    QRectF first = bars->segmentRect(0, 0), second = bars->segmentRect(1, 0);
    QPointF gap((first.left() + 2), (first.bottom() + second.top()) / 2);
    QCOMPARE(bars->categoryAt(gap), -1);
    QCOMPARE(bars->categoryAt(QPointF(first.left() - 30, first.center().y())), -1);
    // Picked elsewhere: the chart follows; an op without a bar clears the mark.
    const int op = cost->data.ops[1].op;
    selection.selectOp(op, -1, views::SelectionOrigin::Editor);
    QCOMPARE(bars->highlightedCategory(), 1);
    int other = -1;
    for (int i = 0; i < snap->views->ops.size(); ++i) {
      bool charted = false;
      for (const views::TimeBar& b : cost->data.ops)
        charted |= b.op == i;
      if (!charted)
        other = i;
    }
    QVERIFY(other >= 0);
    selection.selectOp(other, -1, views::SelectionOrigin::Editor);
    QCOMPARE(bars->highlightedCategory(), -1);
  }
  void rendersEveryPositiveKernel_data() {
    QTest::addColumn<QString>("path");
    const QStringList paths = positiveCorpus();
    QVERIFY(paths.size() >= 8);
    for (const QString& p : paths)
      QTest::newRow(qPrintable(p)) << p;
  }

  void rendersEveryPositiveKernel() {
    QFETCH(QString, path);
    auto snap = test::corpusSnapshot(path);
    QVERIFY(snap->result.accepted);
    views::SelectionModel selection;
    selection.setSnapshot(snap);

    widgets::PerformanceView perf(&selection);
    perf.resize(1100, 700);
    perf.setCheck(snap);
    QVERIFY(perf.pending());
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    perf.setCost(cost);
    QVERIFY(!perf.pending());
    QCOMPARE(perf.shownCheck(), snap->jobId);
    QVERIFY2(cost->data.ok, qPrintable(cost->data.unavailable));
    QVERIFY(perf.statusText().contains(cost->data.bottleneck));
    // Ceilings, point, error bar, labels; bars per op and per role.
    QVERIFY(perf.roofline()->itemCount() >= 8);
    QVERIFY(perf.opBars()->itemCount() >= 2);
    QVERIFY(perf.roleBars()->itemCount() >= 2);
    QImage image = perf.grab().toImage();
    QVERIFY2(colourCount(image) > 20, "performance view looks blank");
    // A click on the top operation's bar selects that operation.
    QSignalSpy picked(&selection, &views::SelectionModel::selectionChanged);
    Q_EMIT perf.opBars()->categoryClicked(0);
    QCOMPARE(picked.count(), 1);
    QCOMPARE(selection.current().op, cost->data.ops[0].op);
    QCOMPARE(picked.last().at(1).value<views::SelectionOrigin>(),
             views::SelectionOrigin::Performance);

    widgets::LoweredCodeView code(&selection);
    code.resize(1100, 700);
    QSignalSpy wants(&code, &widgets::LoweredCodeView::emitRequested);
    code.setCheck(snap);
    QVERIFY(!code.ready());
    views::LowerSnapshotPtr lowered =
        views::buildLowerSnapshot(*test::compiler(), snap, code.emitKind(), 3);
    if (!lowered->ok && !lowered->cudaOffered) {
      // Accepted but not lowerable on any path (a kernel whose lowering is refused, recorded
      // by the gate as hw-lowering-unsupported): the view names the finding.
      code.setLowered(lowered);
      QVERIFY(code.ready());
      QVERIFY2(code.loweredText()->toPlainText().contains("hw-lowering-unsupported"),
               qPrintable(code.loweredText()->toPlainText().left(400)));
      return;
    }
    if (!lowered->ok) {
      // sm_100a: the finding is shown and CUDA offered.
      QVERIFY(lowered->cudaOffered);
      code.setLowered(lowered);
      QVERIFY(code.ready());
      QVERIFY(code.loweredText()->toPlainText().contains("hw-lowering-unsupported"));
      QPushButton* cuda = code.findChild<QPushButton*>(QStringLiteral("showCudaButton"));
      QVERIFY(cuda && !cuda->isHidden());
      cuda->click();
      QCOMPARE(code.emitKind(), views::LoweredEmit::Cuda);
      QCOMPARE(wants.count(), 1);
      lowered = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Cuda, 4);
      QVERIFY(lowered->ok);
    }
    code.setLowered(lowered);
    QCOMPARE(code.lowered(), lowered);
    QVERIFY(code.statusText().contains(QString::number(lowered->lines.mappedLines())));
    // Selecting an op highlights the lowered lines it produced.
    int op = -1;
    for (int i = 0; i < snap->views->ops.size() && op < 0; ++i)
      if (!lowered->lines.loweredLines(snap->views->ops[i].span.line).isEmpty())
        op = i;
    QVERIFY(op >= 0);
    int line = snap->views->ops[op].span.line;
    selection.selectOp(op, -1, views::SelectionOrigin::Graph);
    QCOMPARE(code.highlightedSourceLine(), line);
    QCOMPARE(code.highlightedLoweredLines(), lowered->lines.loweredLines(line));
    QCOMPARE(code.loweredText()->extraSelections().size(),
             lowered->lines.loweredLines(line).size());
    image = code.grab().toImage();
    QVERIFY2(colourCount(image) > 20, "code view looks blank");
  }

  void clickingALoweredLineSelectsItsIrLine() {
    auto snap = test::corpusSnapshot(QStringLiteral("hopper_gemm/gemm_ws.cake"));
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::LoweredCodeView code(&selection);
    code.setCheck(snap);
    views::LowerSnapshotPtr lowered =
        views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 2);
    code.setLowered(lowered);
    QSignalSpy changed(&selection, &views::SelectionModel::selectionChanged);
    // The first PTX line under `.loc 1 72` (the wgmma.mma).
    QVector<int> lines = lowered->lines.loweredLines(72);
    QVERIFY(!lines.isEmpty());
    code.activateLoweredLine(lines.last());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(1).value<views::SelectionOrigin>(), views::SelectionOrigin::Code);
    QCOMPARE(selection.sourceOf(selection.current()).line, 72);
    QCOMPARE(snap->views->ops[selection.current().op].name, QStringLiteral("wgmma.mma"));
    QCOMPARE(code.highlightedSourceLine(), 72);
    QCOMPARE(code.sourceText()->extraSelections().size(), 1);
    // A line with no source (the PTX header) changes nothing.
    code.activateLoweredLine(1);
    QCOMPARE(changed.count(), 1);
    // Clicking in the IR pane selects that line too.
    QTextCursor c(code.sourceText()->document()->findBlockByNumber(61 - 1));
    code.sourceText()->setTextCursor(c);
    QCOMPARE(selection.sourceOf(selection.current()).line, 61);
    QCOMPARE(code.highlightedLoweredLines(), lowered->lines.loweredLines(61));
  }

  void ptxFiltersKeepTheLinks() {
    // Item 7: the PTX can hide its `.loc` directives and inline-asm markers; the IR ↔ PTX
    // links still work on what is shown (line numbers of the API stay the unfiltered ones).
    auto snap = test::corpusSnapshot(QStringLiteral("hopper_gemm/gemm_ws.cake"));
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::LoweredCodeView code(&selection);
    code.setCheck(snap);
    views::LowerSnapshotPtr lowered =
        views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 2);
    QVERIFY(lowered->ok);
    code.setLowered(lowered);
    auto count = [](const QString& text, const QString& prefix) {
      int n = 0;
      for (const QString& l : text.split('\n'))
        n += l.trimmed().startsWith(prefix);
      return n;
    };
    const QString full = lowered->text;
    const int locs = count(full, ".loc"),
              markers = count(full, "// begin inline asm") + count(full, "// end inline asm");
    QVERIFY(locs > 10 && markers > 2);
    QCOMPARE(code.loweredText()->toPlainText(), full);
    auto* hideLoc = code.findChild<QCheckBox*>("hideLocFilter");
    auto* hideAsm = code.findChild<QCheckBox*>("hideAsmMarkersFilter");
    QVERIFY(hideLoc && hideAsm);
    hideLoc->click();
    QString shown = code.loweredText()->toPlainText();
    QCOMPARE(count(shown, ".loc"), 0);
    QCOMPARE(shown.count('\n'), full.count('\n') - locs);
    hideAsm->click();
    shown = code.loweredText()->toPlainText();
    QCOMPARE(count(shown, "// begin inline asm") + count(shown, "// end inline asm"), 0);
    QCOMPARE(shown.count('\n'), full.count('\n') - locs - markers);
    // The wgmma.mma on line 72: its PTX lines highlighted at their shown positions.
    const QVector<int> lines = lowered->lines.loweredLines(72);
    QVERIFY(!lines.isEmpty());
    selection.selectLine(72, views::SelectionOrigin::Editor);
    QCOMPARE(code.highlightedLoweredLines(), lines);
    const QStringList fullLines = full.split('\n');
    QList<QTextEdit::ExtraSelection> marks = code.loweredText()->extraSelections();
    QVector<int> visible; // the mapped lines that are not hidden `.loc` directives
    for (int l : lines)
      if (!fullLines[l - 1].trimmed().startsWith(".loc"))
        visible << l;
    QVERIFY(!visible.isEmpty() && visible.size() < lines.size());
    QCOMPARE(marks.size(), visible.size());
    for (int i = 0; i < visible.size(); ++i) {
      QCOMPARE(code.shownLine(visible[i]), marks[i].cursor.blockNumber() + 1);
      QCOMPARE(marks[i].cursor.block().text(), fullLines[visible[i] - 1]);
    }
    // A click on a shown line selects the IR line of the unfiltered line it is.
    selection.selectLine(61, views::SelectionOrigin::Editor);
    QTextCursor c(
        code.loweredText()->document()->findBlockByNumber(code.shownLine(visible.last()) - 1));
    code.loweredText()->setTextCursor(c);
    QCOMPARE(selection.sourceOf(selection.current()).line, 72);
    // Filters off: the text is whole again.
    code.setFilter({});
    QVERIFY(!hideLoc->isChecked() && !hideAsm->isChecked());
    QCOMPARE(code.loweredText()->toPlainText(), full);
    // The pure filter: every shown line maps back to the same text.
    views::FilteredLines f = views::filterLowered(full, {true, true});
    const QStringList kept = f.text.split('\n');
    QCOMPARE(kept.size(), f.original.size());
    for (int i = 0; i < kept.size(); ++i)
      QCOMPARE(kept[i], fullLines[f.original[i] - 1]);
    QCOMPARE(f.shownLine(f.original.last()), int(kept.size()));
  }
  void refusedKernelSaysWhy() {
    const char* bad = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                      "  reg x : f32[4] scope=thread\n  on r {\n    ew.fil x value=0.0\n  }\n}\n";
    auto snap = test::snapshotOf("k.cake", bad);
    views::SelectionModel selection;
    selection.setSnapshot(snap);
    widgets::PerformanceView perf(&selection);
    perf.setCheck(snap);
    QVERIFY(!perf.pending());
    QVERIFY(perf.statusText().contains("refused"));
    widgets::LoweredCodeView code(&selection);
    code.setCheck(snap);
    QVERIFY(code.ready());
    QVERIFY(code.statusText().contains("refused"));
    // A stale estimate (of another check) is ignored.
    QString path = test::corpusPath(QStringLiteral("hopper_gemm/gemm_ws.cake"));
    auto good = test::snapshotOf(path, test::readFile(path), snap->jobId + 1);
    perf.setCost(views::buildCostSnapshot(*test::compiler(), good, 9));
    QVERIFY(perf.statusText().contains("refused"));
  }

  void jobsViewCancels() {
    views::CompileSession session;
    session.setCompiler(test::compiler());
    views::JobsModel model;
    model.setSession(&session);
    widgets::JobsView view(&model, &session);
    view.resize(800, 300);
    quint64 id = session.requestCheck("k.cake",
                                      test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake")));
    QCOMPARE(model.rowCount(), 1);
    view.table()->setCurrentIndex(model.index(model.rowOf(id), 0));
    QVERIFY(view.cancelCurrent());
    session.waitForIdle();
    QTRY_COMPARE(model.activeCount(), 0);
    QCOMPARE(model.state(model.rowOf(id)), views::JobState::Cancelled);
    QCOMPARE(model.rowCount(), 1); // the cancelled check never led to a cost job
    QVERIFY(colourCount(view.grab().toImage()) > 4);
  }
};

QTEST_MAIN(TestPerfViews)
#include "tst_perfviews.moc"
