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
