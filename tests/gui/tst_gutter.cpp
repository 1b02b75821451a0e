// The editor gutter's metrics (issue 17 item 6): per-IR-line time shares from the cost model,
// bank-conflict ways from the verifier's bank model, PTX / SASS instruction counts through the
// line info, their merge, and the CodeEditor's toggleable columns and heat strip offscreen.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/GutterMetrics.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/PerformanceData.h"
#include "cake/widgets/CodeEditor.h"

#include <QAction>
#include <QHelpEvent>
#include <QTextBlock>
#include <QToolTip>
#include <QtTest>
#include <cmath>

using namespace cake;

namespace {

// Line 13 is the operation (as in tst_performance): an ldmatrix from 128-byte rows.
QString bankKernel(const QString& swizzle) {
  return QStringLiteral("kernel k target=sm_80 {\n"
                        "  const M = 4096\n"
                        "  const K = 4096\n"
                        "  param A : bf16[M, K] role=input\n"
                        "  param F : f32[M, K] role=output\n"
                        "  grid tiles=[M / 128]\n"
                        "  role main warps=0..4\n"
                        "  smem b_s : bf16[128, 64] offset=0%1\n"
                        "  reg b_f : bf16[32, 16] scope=warp\n"
                        "  on main {\n"
                        "    for t in tiles {\n"
                        "      for k in 0..4 {\n"
                        "        ldmatrix b_f, b_s[warp * 32 +: 32, k * 16 +: 16]\n"
                        "      }\n"
                        "    }\n"
                        "  }\n"
                        "}\n")
      .arg(swizzle);
}

const QString kHopper = QStringLiteral("hopper_gemm/gemm_ws.cake");

} // namespace

class TestGutter : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void instructionsPerLineSynthetic() {
    // PTX: instructions end with ';' (inside inline asm too); declarations, directives, labels,
    // comments and braces are not counted.
    const QString ptx = ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.loc\t1 5 3\n"
                        "\tadd.s32 %r1, %r2, 1;\n\t// begin inline asm\n\t{\n"
                        "\twgmma.fence.sync.aligned;\n\t}\n\t// end inline asm\n$L__BB0_1:\n"
                        "\t.loc\t1 7 1\n\t@%p1 bra $L__BB0_1;\n\tret;\n}\n\t.file\t1 \"k.cake\"\n";
    auto map = views::LoweredLineMap::build(ptx, views::LoweredEmit::Ptx, "k.cake");
    auto n = views::lineInstructions(ptx, views::LoweredEmit::Ptx, map);
    QCOMPARE(n.value(5), 2); // add + wgmma.fence
    QCOMPARE(n.value(7), 2); // bra + ret
    QCOMPARE(n.size(), 2);
    const QString sass =
        "\t//## File \"k.cake\", line 9\n        /*0000*/  LDC R1, c[0x0][0x28] ;\n"
        ".L_x_0:\n        /*0010*/  EXIT ;\n        /*0020*/  BRA `(.L_x_1) ;\n";
    auto smap = views::LoweredLineMap::build(sass, views::LoweredEmit::Sass, "k.cake");
    QCOMPARE(views::lineInstructions(sass, views::LoweredEmit::Sass, smap).value(9), 3);
    // Other kinds have no instruction column.
    QVERIFY(views::lineInstructions(ptx, views::LoweredEmit::Cuda, map).isEmpty());
  }

  void bankWaysPerLine_data() {
    QTest::addColumn<QString>("swizzle");
    QTest::addColumn<int>("ways");
    QTest::newRow("unswizzled: 8-way") << QString() << 8;
    QTest::newRow("128B swizzle: conflict-free") << QStringLiteral(" swizzle=128B") << 1;
  }
  void bankWaysPerLine() {
    QFETCH(QString, swizzle);
    QFETCH(int, ways);
    auto snap = test::snapshotOf("k.cake", bankKernel(swizzle));
    QVERIFY(snap->result.verification.ran);
    auto bank = views::lineBankWays(*snap);
    QCOMPARE(bank.value(13), ways);
    QCOMPARE(bank.size(), 1); // only the line with a shared-memory access
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    QCOMPARE(cost->lineBankWays, bank); // computed in the cost job
    auto g = views::combineGutterMetrics(cost, nullptr);
    QCOMPARE(g.cell(13, views::GutterBankWays), QStringLiteral("%1×").arg(ways));
    QVERIFY(g.tooltip(13).contains(ways > 1 ? QStringLiteral("%1-way bank conflicts").arg(ways)
                                            : QStringLiteral("free of bank conflicts")));
    QVERIFY(g.cell(12, views::GutterBankWays).isEmpty());
  }

  void timeSharesOfTheHopperGemm() {
    auto snap = test::corpusSnapshot(kHopper);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    QVERIFY(cost->estimate && cost->estimate->ok);
    QVERIFY(!cost->lineShares.isEmpty());
    double sum = 0, opSum = 0;
    for (double s : cost->lineShares)
      sum += s;
    for (double s : cost->shares)
      opSum += s;
    QVERIFY2(std::abs(sum - opSum) < 1e-9, qPrintable(QStringLiteral("%1 %2").arg(sum).arg(opSum)));
    // Every line with a share holds an operation.
    for (auto it = cost->lineShares.begin(); it != cost->lineShares.end(); ++it)
      QVERIFY2(snap->views->opAtLine.contains(it.key()), qPrintable(QString::number(it.key())));
    // The tensor-core MMA (line 72) takes the largest share of this compute-bound GEMM.
    auto g = views::combineGutterMetrics(cost, nullptr);
    int hottest = 0;
    for (auto it = g.shares.begin(); it != g.shares.end(); ++it)
      if (hottest == 0 || it.value() > g.shares.value(hottest))
        hottest = it.key();
    QCOMPARE(hottest, 72);
    QCOMPARE(g.heat(72), 1.0);
    QVERIFY(g.heat(1) == 0.0);
    QVERIFY(g.cell(72, views::GutterTimeShare).endsWith('%'));
    QVERIFY(g.tooltip(72).contains("of the predicted time"));

    // With the PTX lowering: instruction counts, named after their kind.
    auto lowered = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 3);
    QVERIFY(lowered->ok);
    QVERIFY(lowered->instructions.value(72) > 0);
    g = views::combineGutterMetrics(cost, lowered);
    QCOMPARE(g.instructionKind, QStringLiteral("PTX"));
    QCOMPARE(g.cell(72, views::GutterInstructions),
             QString::number(lowered->instructions.value(72)));
    QVERIFY(g.tooltip(72).contains("PTX instruction(s)"));
    // CUDA text has no instruction column; a lowering of another file is ignored.
    auto cuda = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Cuda, 4);
    QVERIFY(views::combineGutterMetrics(cost, cuda).instructions.isEmpty());
    auto other = test::snapshotOf(QStringLiteral("/elsewhere/other.cake"), snap->text, 9);
    auto otherPtx = views::buildLowerSnapshot(*test::compiler(), other, views::LoweredEmit::Ptx, 5);
    QVERIFY(views::combineGutterMetrics(cost, otherPtx).instructions.isEmpty());
    QVERIFY(!views::combineGutterMetrics(nullptr, otherPtx).instructions.isEmpty());
  }

  void editorColumns() {
    auto snap = test::corpusSnapshot(kHopper);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 2);
    auto lowered = views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 3);
    widgets::CodeEditor editor;
    editor.resize(900, 700);
    editor.setPlainText(snap->text);
    const int plain = editor.gutterWidth();
    QVERIFY(editor.gutterColumnRect(views::GutterTimeShare).isEmpty()); // no metrics yet
    editor.setGutterMetrics(views::combineGutterMetrics(cost, lowered));
    QVERIFY(editor.gutterWidth() > plain);
    // By default only the strip and the time share take room (a half-screen window keeps its
    // editor width); the bank ways and instruction counts are one toggle away.
    QCOMPARE(editor.gutterColumns(), unsigned(views::GutterDefaultColumns));
    QVERIFY(!editor.gutterColumnRect(views::GutterTimeShare).isEmpty());
    QVERIFY(editor.gutterColumnRect(views::GutterBankWays).isEmpty());
    QVERIFY(editor.gutterColumnRect(views::GutterInstructions).isEmpty());
    editor.setGutterColumns(views::GutterAllColumns);
    // Strip, share, bank ways (the GEMM's swizzled tiles are modelled), instructions: in order,
    // disjoint, left of the line numbers.
    QRect strip = editor.gutterColumnRect(views::GutterHeatStrip);
    QRect share = editor.gutterColumnRect(views::GutterTimeShare);
    QRect bank = editor.gutterColumnRect(views::GutterBankWays);
    QRect insn = editor.gutterColumnRect(views::GutterInstructions);
    QVERIFY(!strip.isEmpty() && !share.isEmpty() && !insn.isEmpty());
    QVERIFY(strip.right() < share.left());
    QVERIFY(share.right() < insn.left());
    if (!bank.isEmpty())
      QVERIFY(share.right() < bank.left() && bank.right() < insn.left());
    QVERIFY(insn.right() < editor.gutterWidth() - 18);

    // Toggling a column's action takes its room away, and back.
    const int full = editor.gutterWidth();
    QAction* shareAction = nullptr;
    for (QAction* a : editor.gutterColumnActions())
      if (a->data().toUInt() == views::GutterTimeShare)
        shareAction = a;
    QVERIFY(shareAction && shareAction->isChecked());
    shareAction->setChecked(false);
    QVERIFY(!(editor.gutterColumns() & views::GutterTimeShare));
    QVERIFY(editor.gutterColumnRect(views::GutterTimeShare).isEmpty());
    QCOMPARE(editor.gutterWidth(), full - share.width());
    editor.setGutterColumns(views::GutterAllColumns);
    QVERIFY(shareAction->isChecked());
    QCOMPARE(editor.gutterWidth(), full);
    editor.setGutterColumns(0);
    QCOMPARE(editor.gutterWidth(), plain);
    editor.setGutterColumns(views::GutterAllColumns);

    // The gutter's hover names the metrics of the line.
    QString hover = editor.hoverText(72, 1, true);
    QVERIFY2(hover.contains("of the predicted time") && hover.contains("PTX instruction(s)"),
             qPrintable(hover));
    QVERIFY(!editor.hoverText(72, 1, false).contains("predicted time"));

    // The heat strip is painted hot on the hottest line and not on a declaration line.
    editor.show();
    editor.goTo(72, 1, false);
    QCoreApplication::processEvents();
    QImage img = editor.grab().toImage();
    QTextBlock b72 = editor.document()->findBlockByNumber(71);
    QRect r = editor.cursorRect(QTextCursor(b72));
    QPoint at = editor.viewport()->mapTo(&editor, QPoint(0, r.center().y()));
    QColor hot = img.pixelColor(editor.contentsRect().left() + strip.center().x(), at.y());
    QVERIFY2(hot.red() > hot.blue() + 60, qPrintable(hot.name()));
    if (QByteArray dir = qgetenv("CAKE_TEST_SHOTS"); !dir.isEmpty())
      QVERIFY(img.save(QDir(QString::fromUtf8(dir)).filePath("gutter-hopper.png")));
  }

  /// The header row names each shown column and says its unit and scope in a tool tip.
  void headerNamesTheColumns_data() {
    QTest::addColumn<unsigned>("column");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QStringList>("tip");
    QTest::newRow("time share") << unsigned(views::GutterTimeShare) << "time"
                                << QStringList{"(%)", "predicted time", "whole kernel"};
    QTest::newRow("bank ways") << unsigned(views::GutterBankWays) << "bank"
                               << QStringList{"(×)", "per warp", "conflict-free"};
    QTest::newRow("instructions") << unsigned(views::GutterInstructions) << "PTX"
                                  << QStringList{"PTX instructions", "one thread", "static"};
    QTest::newRow("heat strip") << unsigned(views::GutterHeatStrip) << ""
                                << QStringList{"time share", "hottest line"};
    QTest::newRow("line numbers") << unsigned(views::GutterLineNumbers) << "line"
                                  << QStringList{"line number", "finding"};
  }
  void headerNamesTheColumns() {
    QFETCH(unsigned, column);
    QFETCH(QString, title);
    QFETCH(QStringList, tip);
    const auto col = views::GutterColumn(column);
    auto snap = test::corpusSnapshot(kHopper);
    // Every column has a value on some line (the tables as the cost and lowering jobs make them).
    views::GutterMetrics metrics;
    metrics.shares = {{72, 0.5}, {60, 0.125}};
    metrics.maxShare = 0.5;
    metrics.bankWays = {{72, 4}, {60, 1}};
    metrics.instructions = {{72, 137}, {60, 3}};
    metrics.instructionKind = QStringLiteral("PTX");
    widgets::CodeEditor editor;
    editor.resize(900, 500);
    editor.setPlainText(snap->text);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    // Line numbers alone need no header: the text starts at the top.
    QCOMPARE(editor.gutterHeaderHeight(), 0);
    QVERIFY(!editor.gutterHeader()->isVisible());
    const int textTop = editor.viewport()->geometry().top();
    editor.setGutterMetrics(metrics);
    editor.setGutterColumns(views::GutterAllColumns);
    const int h = editor.gutterHeaderHeight();
    QVERIFY(h > 0 && editor.gutterHeader()->isVisible());
    QCOMPARE(editor.viewport()->geometry().top(), textTop + h);
    QCOMPARE(editor.gutterHeader()->geometry().top(), textTop);

    QRect r = editor.gutterColumnRect(col);
    QVERIFY(!r.isEmpty());
    QCOMPARE(editor.gutterColumnAt(r.center().x()), col);
    QCOMPARE(views::gutterColumnTitle(col, editor.gutterMetrics()), title);
    // The name fits its column (right-aligned, 4 from the edge, like the values).
    QVERIFY(QFontMetrics(editor.gutterHeader()->font()).horizontalAdvance(title) <= r.width() - 4);
    if (!title.isEmpty()) {
      // Drawn: text pixels in the column's part of the header.
      QImage img = editor.gutterHeader()->grab().toImage();
      const QRgb background = img.pixel(r.left(), 1);
      int ink = 0;
      for (int x = r.left(); x <= r.right(); ++x)
        for (int y = 0; y < h - 1; ++y)
          ink += img.pixel(x, y) != background;
      QVERIFY2(ink > 5, qPrintable(QString::number(ink)));
    }
    // The tool tip over the column's header names its unit and scope.
    QPoint at(r.center().x(), h / 2);
    QHelpEvent help(QEvent::ToolTip, at, editor.gutterHeader()->mapToGlobal(at));
    QCoreApplication::sendEvent(editor.gutterHeader(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    for (const QString& word : tip)
      QVERIFY2(QToolTip::text().contains(word), qPrintable(QToolTip::text()));
    QToolTip::hideText();

    // Turned off, the column leaves the header; with no optional column the header goes.
    if (column & views::GutterAllColumns) {
      editor.setGutterColumns(views::GutterAllColumns & ~column);
      QVERIFY(editor.gutterColumnRect(col).isEmpty());
      QVERIFY(editor.gutterColumnAt(r.center().x()) != col);
    }
    editor.setGutterColumns(0);
    QCOMPARE(editor.gutterHeaderHeight(), 0);
    QVERIFY(!editor.gutterHeader()->isVisible());
    QCOMPARE(editor.viewport()->geometry().top(), textTop);
    QCOMPARE(editor.gutterColumnAt(-1), views::GutterColumn(0));
  }
};

QTEST_MAIN(TestGutter)
#include "tst_gutter.moc"
