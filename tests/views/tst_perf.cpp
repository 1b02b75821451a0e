// Tests of the performance, lowered-code and jobs data: roofline log-log math, the view data of
// a cost estimate, the lowered-line mapping (PTX .loc, LLVM !dbg, CUDA provenance comments),
// the façade's cost / lowering / ptxas jobs (stale results dropped, cancel) and the jobs model.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/Lower/Toolchain.h"
#include "cake/views/JobsModel.h"
#include "cake/views/LabelPlacement.h"
#include "cake/views/LoweredCode.h"
#include "cake/views/PerformanceData.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace cake;

namespace {

const char* kGood = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                    "  reg x : f32[4] scope=thread\n  on r {\n    ew.fill x value=0.0\n  }\n}\n";
const char* kBad = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                   "  reg x : f32[4] scope=thread\n  on r {\n    ew.fil x value=0.0\n  }\n}\n";

const QString kHopper = QStringLiteral("hopper_gemm/gemm_ws.cake");

/// States a job went through, from the session's jobStateChanged spy.
QList<views::JobState> statesOf(const QSignalSpy& spy, quint64 id) {
  QList<views::JobState> out;
  for (const QList<QVariant>& args : spy)
    if (args.at(0).value<quint64>() == id)
      out << args.at(1).value<views::JobState>();
  return out;
}

} // namespace

class TestPerf : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // ---------------------------------------------------------------- roofline geometry
  // B6: chart point labels inside the plot area, never on top of each other, with a leader
  // line when they had to move away from their point.
  void labelPlacement() {
    using views::LabelRequest;
    const QRectF bounds(0, 0, 300, 200);
    const QSizeF box(100, 20);
    // Free and inside: where its alignment puts it, no leader.
    auto one =
        views::placeLabels({{QPointF(50, 50), box, Qt::AlignLeft | Qt::AlignBottom}}, bounds);
    QCOMPARE(one[0].rect, QRectF(50, 30, 100, 20));
    QVERIFY(!one[0].leader);
    // Right of the plot (a roofline label at the right edge): pushed inside, with a leader.
    auto edge =
        views::placeLabels({{QPointF(280, 100), box, Qt::AlignLeft | Qt::AlignVCenter}}, bounds);
    QCOMPARE(edge[0].rect, QRectF(200, 90, 100, 20));
    QVERIFY(!edge[0].leader); // still touching its anchor (inside the box)
    auto left =
        views::placeLabels({{QPointF(10, 100), box, Qt::AlignRight | Qt::AlignVCenter}}, bounds);
    QCOMPARE(left[0].rect.left(), 0.0);
    QVERIFY(left[0].leader == false || left[0].rect.contains(QPointF(10, 100)));
    // Above the top: clipped before, now moved down and linked.
    auto top =
        views::placeLabels({{QPointF(150, 5), box, Qt::AlignHCenter | Qt::AlignBottom}}, bounds);
    QCOMPARE(top[0].rect.top(), 0.0);
    // Several labels at one point: disjoint, inside, each later one linked to the point.
    QVector<LabelRequest> same(6, {QPointF(150, 100), box, Qt::AlignLeft | Qt::AlignVCenter});
    auto many = views::placeLabels(same, bounds);
    for (int i = 0; i < many.size(); ++i) {
      QVERIFY2(bounds.contains(many[i].rect), qPrintable(QString::number(i)));
      for (int j = 0; j < i; ++j)
        QVERIFY2(!many[i].rect.intersects(many[j].rect),
                 qPrintable(QStringLiteral("%1/%2").arg(i).arg(j)));
      if (i > 0 && !many[i].rect.contains(QPointF(150, 100))) {
        QVERIFY(many[i].leader);
        QCOMPARE(many[i].leaderEnd.x(), 150.0);
      }
    }
    QCOMPARE(many[0].rect, QRectF(150, 90, 100, 20));
    QCOMPARE(many[1].rect, QRectF(150, 100, 100, 20).translated(0, 10)); // nearest free slot below
    // No free slot within reach: it stays clamped (overlap allowed rather than lost).
    auto tight = views::placeLabels(QVector<LabelRequest>(3, {QPointF(50, 10), box, Qt::AlignLeft}),
                                    QRectF(0, 0, 300, 20));
    QCOMPARE(tight[2].rect, QRectF(50, 0, 100, 20));
  }

  void rooflineMath() {
    using G = views::RooflineGeometry;
    // 1000 TFLOP/s over 4000 GB/s meet at 250 FLOP/byte.
    QCOMPARE(G::ridge(1000, 4000), 250.0);
    QCOMPARE(G::attainable(10, 1000, 4000), 40.0);     // memory side: 10 x 4000 GB/s
    QCOMPARE(G::attainable(1000, 1000, 4000), 1000.0); // compute side: the peak
    QCOMPARE(G::attainable(250, 1000, 4000), 1000.0);  // the ridge is on both roofs
    G g;
    g.ceilings << views::Ceiling{"tensor", 1000, false} << views::Ceiling{"fp32", 60, false}
               << views::Ceiling{"L2", 10000, true} << views::Ceiling{"HBM", 4000, true};
    // The roof takes the highest peak and, by default, the lowest bandwidth (HBM).
    QCOMPARE(g.roof(10), 40.0);
    QCOMPARE(g.roof(10, 2), 100.0); // under the L2 ceiling
    QCOMPARE(g.roof(1e5), 1000.0);
    // Ranges: decade-aligned and covering every ridge and point.
    views::RooflinePoint p{"k", 1365, 583, 388, 630};
    g.fit({p});
    for (double v : {g.xMin, g.xMax, g.yMin, g.yMax})
      QCOMPARE(std::fmod(std::log10(v) + 100, 1.0), 0.0);
    QVERIFY(g.xMin <= 15.0 / 10 && g.xMax >= 1365);
    QVERIFY(g.yMin <= 60 && g.yMax >= 1000);
    QVERIFY(g.yMin <= G::attainable(g.xMin, 60, 4000)); // the HBM slope enters from the left
    // Log-log mapping: decades are equally spaced, y grows upwards, round trip exact.
    g.xMin = 0.1;
    g.xMax = 1000;
    g.yMin = 1;
    g.yMax = 1e4;
    QRectF r(10, 20, 300, 400);
    QCOMPARE(g.toPixel(0.1, 1, r), QPointF(10, 420));
    QCOMPARE(g.toPixel(1000, 1e4, r), QPointF(310, 20));
    QCOMPARE(g.toPixel(1, 10, r), QPointF(85, 320)); // 75 px per x decade, 100 per y decade
    QCOMPARE(g.toPixel(10, 100, r), QPointF(160, 220));
    QPointF back = g.fromPixel(g.toPixel(37.5, 812, r), r);
    QVERIFY(std::abs(back.x() - 37.5) < 1e-9 && std::abs(back.y() - 812) < 1e-9);
    // The ridge of the top peak with HBM lies where the two roofs cross in pixels too.
    QPointF ridge = g.toPixel(G::ridge(1000, 4000), 1000, r);
    QPointF slope = g.toPixel(G::ridge(1000, 4000), G::ridge(1000, 4000) * 4000 / 1000, r);
    QVERIFY(std::abs(ridge.y() - slope.y()) < 1e-9);
  }

  // ---------------------------------------------------------------- performance data
  void performanceDataOfHopperGemm() {
    auto snap = test::corpusSnapshot(kHopper);
    QVERIFY(snap->result.accepted);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 7);
    QCOMPARE(cost->jobId, quint64(7));
    QCOMPARE(cost->checkJob, snap->jobId);
    QVERIFY(cost->estimate && cost->estimate->ok);
    const views::PerformanceData& d = cost->data;
    QVERIFY2(d.ok, qPrintable(d.unavailable));
    QCOMPARE(d.target, QStringLiteral("sm_90a"));
    QCOMPARE(d.bottleneck, QString::fromStdString(cost->estimate->bottleneck));
    // Ceilings from the target file: tensor bf16 and FP32 peaks, HBM and L2 bandwidths.
    QStringList labels;
    for (const views::Ceiling& c : d.roofline.ceilings)
      labels << c.label;
    QCOMPARE(labels.size(), 4);
    QVERIFY(labels[0].startsWith("tensor bf16 989"));
    QVERIFY(labels[1].startsWith("FP32"));
    QVERIFY(labels[2].startsWith("L2 10000"));
    QVERIFY(labels[3].startsWith("HBM 3350"));
    // The point is the estimate's roofline coordinate; the bounds bracket it.
    QVERIFY(d.hasFlops);
    QCOMPARE(d.predicted.intensity, cost->estimate->roofline.intensity);
    QCOMPARE(d.predicted.tflops, cost->estimate->roofline.achievedTflops);
    QVERIFY(d.predicted.loTflops < d.predicted.tflops && d.predicted.tflops < d.predicted.hiTflops);
    QVERIFY(std::abs(d.predicted.loTflops -
                     cost->estimate->roofline.flops / cost->estimate->hiUs / 1e6) < 1e-9);
    QVERIFY(d.predictedL2.intensity < d.predicted.intensity); // more L2 bytes than HBM bytes
    // No calibration ships: no measured points, and the chart says so.
    QVERIFY(d.measured.isEmpty());
    QVERIFY(d.measuredNote.startsWith("no measured runs"));
    // Top ops, largest first, with the lines they are written on.
    QVERIFY(!d.ops.isEmpty() && d.ops.size() <= 8);
    for (int i = 1; i < d.ops.size(); ++i)
      QVERIFY(d.ops[i - 1].us + d.ops[i - 1].waitUs >= d.ops[i].us + d.ops[i].waitUs);
    QVERIFY(d.ops[0].line > 0 && d.ops[0].op >= 0);
    QCOMPARE(d.roles.size(), 2); // producer, consumer
    QVERIFY(d.summary.contains("memory-bound") || d.summary.contains(d.bottleneck));
  }

  void performanceDataNamesHints() {
    auto snap = test::corpusSnapshot(QStringLiteral("flash_kmeans/assign.cake"));
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 1);
    QVERIFY(cost->data.ok);
    QVERIFY(!cost->data.hints.isEmpty());
    const cost::Hint& h = cost->estimate->hints[0];
    QVERIFY2(cost->data.hints[0].endsWith(QString::fromStdString(h.message)),
             qPrintable(cost->data.hints[0]));
    QVERIFY(cost->data.hints[0].startsWith("line 35: pipeline 'xr'"));
    QVERIFY(cost->data.hints[0].contains("% predicted"));
  }

  /// Measured runs come only from the measurement file a calibration names, for this exact
  /// kernel text (rewritten variants and other kernels are not its runs).
  void measuredRunsFromTheCalibration() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString kernel = test::corpusPath(kHopper);
    {
      QFile cal(dir.filePath("sm_90a.json"));
      QVERIFY(cal.open(QIODevice::WriteOnly));
      cal.write(R"({"target": "sm_90a",
        "params": {"tensor_efficiency": 0.8, "hbm_efficiency": 0.9, "l2_efficiency": 0.8,
                   "smem_efficiency": 1.0, "alu_efficiency": 1.0, "tmem_efficiency": 1.0,
                   "latency_scale": 1.2, "launch_overhead_us": 5.0},
        "fit": {"source": "runs/measurements.json", "rms_log_error": 0.01}})");
    }
    QVERIFY(QDir(dir.path()).mkpath("runs"));
    {
      QFile runs(dir.filePath("runs/measurements.json"));
      QVERIFY(runs.open(QIODevice::WriteOnly));
      QString rel = QDir(dir.filePath("runs")).relativeFilePath(kernel);
      runs.write(QStringLiteral(R"({"target": "sm_90a", "measurements": [
        {"kernel": "%1", "measured_us": 300.0},
        {"kernel": "%1", "measured_us": 352.0, "stages": {"ring": 2}},
        {"kernel": "%2", "measured_us": 113.7}]})")
                     .arg(rel, QDir(dir.filePath("runs"))
                                   .relativeFilePath(test::corpusPath("rmsnorm/rmsnorm.cake")))
                     .toUtf8());
    }
    driver::DataPaths paths = test::dataPaths();
    paths.calibration = dir.path().toStdString();
    std::shared_ptr<const driver::Compiler> calibrated(driver::Compiler::load(paths));
    QVERIFY(calibrated->ok());
    auto snap = std::make_shared<views::CheckSnapshot>();
    snap->path = kernel;
    snap->text = test::readFile(kernel);
    snap->result = calibrated->check(kernel.toStdString(), snap->text.toStdString());
    QVERIFY(snap->result.accepted);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*calibrated, snap, 1);
    QVERIFY(cost->data.ok && cost->data.calibrated);
    QCOMPARE(cost->data.measured.size(), 1);
    const views::RooflinePoint& m = cost->data.measured[0];
    QCOMPARE(m.intensity, cost->estimate->roofline.intensity);
    QVERIFY(std::abs(m.tflops - cost->estimate->roofline.flops / 300.0 / 1e6) < 1e-9);
    QVERIFY2(cost->data.measuredNote.startsWith("1 measured run"),
             qPrintable(cost->data.measuredNote));
    // The measured point lies inside the fitted range.
    QVERIFY(m.tflops > cost->data.roofline.yMin && m.tflops < cost->data.roofline.yMax);

    // A kernel of the same target without runs in the file: the note says so.
    QString other = test::corpusPath("flash_attention/fa_fwd.cake");
    auto s2 = std::make_shared<views::CheckSnapshot>();
    s2->path = other;
    s2->text = test::readFile(other);
    s2->result = calibrated->check(other.toStdString(), s2->text.toStdString());
    QCOMPARE(QString::fromStdString(s2->result.model.targetName), QStringLiteral("sm_90a"));
    views::CostSnapshotPtr c2 = views::buildCostSnapshot(*calibrated, s2, 2);
    QVERIFY(c2->data.ok);
    QVERIFY(c2->data.measured.isEmpty());
    QVERIFY2(c2->data.measuredNote.startsWith("no measured runs of this kernel"),
             qPrintable(c2->data.measuredNote));
  }

  void refusedKernelHasNoEstimate() {
    auto snap = test::snapshotOf("k.cake", kBad);
    QVERIFY(!snap->result.accepted);
    views::CostSnapshotPtr cost = views::buildCostSnapshot(*test::compiler(), snap, 1);
    QVERIFY(!cost->data.ok);
    QVERIFY(!cost->estimate);
    QVERIFY(cost->data.unavailable.contains("refused"));
  }

  // ---------------------------------------------------------------- line mapping
  void lineMapPtxSynthetic() {
    QString ptx =
        ".visible .entry k(\n)\n{\n\t.loc\t1 5 3\n\tadd.s32 %r1, %r2, 1;\n\n\t// comment\n"
        "\t.loc\t2 9 1\n\tmov.u32 %r3, 0;\n\t.loc\t1 7 1\n\tmul.lo.s32 %r4, %r1, 3;\n}\n"
        "\t.file\t1 \"dir/k.cake\"\n\t.file\t2 \"other.h\"\n";
    auto m = views::LoweredLineMap::build(ptx, views::LoweredEmit::Ptx, "dir/k.cake");
    QCOMPARE(m.sourceLine(4), 5); // the .loc line itself
    QCOMPARE(m.sourceLine(5), 5);
    QCOMPARE(m.sourceLine(6), 0); // blank
    QCOMPARE(m.sourceLine(7), 0); // comment
    QCOMPARE(m.sourceLine(9), 0); // another file
    QCOMPARE(m.sourceLine(11), 7);
    QCOMPARE(m.sourceLine(12), 0); // end of the function
    QCOMPARE(m.loweredLines(5), (QVector<int>{4, 5}));
    QCOMPARE(m.loweredLines(7), (QVector<int>{10, 11}));
    QVERIFY(m.loweredLines(9).isEmpty());
  }

  void lineMapLlvmAndCudaSynthetic() {
    QString ll =
        "define void @k() !dbg !4 {\n  %1 = add i32 0, 1, !dbg !7\n  ret void, !dbg !8\n}\n"
        "!4 = distinct !DISubprogram(name: \"k\", line: 1, scope: !1)\n"
        "!7 = !DILocation(line: 12, column: 5, scope: !4)\n!8 = !DILocation(line: 14, column: 1, "
        "scope: !4)\n";
    auto m = views::LoweredLineMap::build(ll, views::LoweredEmit::LlvmIr, "k.cake");
    QCOMPARE(m.sourceLine(1), 1);
    QCOMPARE(m.sourceLine(2), 12);
    QCOMPARE(m.sourceLine(3), 14);
    QCOMPARE(m.sourceLine(5), 0); // metadata lines are not code
    QString cu = "  {\n    // L47: mbarrier.init full\n    if (e) {\n      init();\n    }\n"
                 "      // L48: mbarrier.init empty\n      init2();\n    }\n  x = 1;\n";
    auto c = views::LoweredLineMap::build(cu, views::LoweredEmit::Cuda, "k.cake");
    QCOMPARE(c.loweredLines(47), (QVector<int>{2, 3, 4, 5}));
    QCOMPARE(c.loweredLines(48), (QVector<int>{6, 7}));
    QCOMPARE(c.sourceLine(8), 0); // the enclosing block closes
    QCOMPARE(c.sourceLine(9), 0);
  }

  void lineMapOfLoweredHopperGemm() {
    auto snap = test::corpusSnapshot(kHopper);
    int wgmma = -1;
    for (int i = 0; i < snap->views->ops.size(); ++i)
      if (snap->views->ops[i].name == QLatin1String("wgmma.mma"))
        wgmma = i;
    QVERIFY(wgmma >= 0);
    int line = snap->views->ops[wgmma].span.line;
    QCOMPARE(line, 72);
    for (views::LoweredEmit kind :
         {views::LoweredEmit::Ptx, views::LoweredEmit::LlvmIr, views::LoweredEmit::Cuda}) {
      views::LowerSnapshotPtr l = views::buildLowerSnapshot(*test::compiler(), snap, kind, 3);
      QVERIFY2(l->ok, qPrintable(l->unavailable));
      QCOMPARE(l->kind, kind);
      QVector<int> lowered = l->lines.loweredLines(line);
      QVERIFY2(!lowered.isEmpty(), qPrintable(views::loweredEmitName(kind)));
      const QStringList text = l->text.split('\n');
      if (kind == views::LoweredEmit::Ptx) {
        // Select IR line 72 → the PTX lines under `.loc 1 72`, the first being that .loc.
        QVERIFY2(text[lowered.first() - 1].contains(QRegularExpression(R"(\.loc\s+1\s+72\s)")),
                 qPrintable(text[lowered.first() - 1]));
        bool wgmmaInstr = false;
        for (int ln : lowered)
          wgmmaInstr |= text[ln - 1].contains("wgmma.mma_async");
        QVERIFY(wgmmaInstr);
      }
      if (kind == views::LoweredEmit::Cuda)
        QVERIFY(text[lowered.first() - 1].contains("// L72:"));
      // And back: every one of those lowered lines maps to IR line 72.
      for (int ln : lowered)
        QCOMPARE(l->lines.sourceLine(ln), line);
    }
  }

  void blackwellHasNoLlvmPath() {
    auto snap = test::corpusSnapshot(QStringLiteral("blackwell_gemm/gemm_tcgen05.cake"));
    QVERIFY(snap->result.accepted);
    views::LowerSnapshotPtr ptx =
        views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Ptx, 1);
    QVERIFY(!ptx->ok);
    QVERIFY(ptx->cudaOffered);
    QVERIFY(ptx->unavailable.contains("hw-lowering-unsupported"));
    QVERIFY(ptx->unavailable.contains("sm_100a is not available in LLVM"));
    views::LowerSnapshotPtr cuda =
        views::buildLowerSnapshot(*test::compiler(), snap, views::LoweredEmit::Cuda, 2);
    QVERIFY2(cuda->ok, qPrintable(cuda->unavailable));
    QVERIFY(cuda->lines.mappedLines() > 0);
  }

  // ---------------------------------------------------------------- session jobs
  void costJobFollowsAcceptedChecksAndStaleOnesAreDropped() {
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy checks(&session, &views::CompileSession::checkFinished);
    QSignalSpy costs(&session, &views::CompileSession::costFinished);
    QSignalSpy states(&session, &views::CompileSession::jobStateChanged);
    QString path = test::corpusPath(kHopper);
    session.requestCheck(path, test::readFile(path));
    QVERIFY(checks.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(costs.count(), 1, 20000);
    auto snap = checks.last().at(0).value<views::CheckSnapshotPtr>();
    auto cost = costs.last().at(0).value<views::CostSnapshotPtr>();
    QCOMPARE(cost->checkJob, snap->jobId);
    QVERIFY(cost->data.ok);

    // Two cost requests: only the newer is delivered, the older ends superseded.
    quint64 older = session.requestCost(snap);
    quint64 newer = session.requestCost(snap);
    QTRY_COMPARE_WITH_TIMEOUT(costs.count(), 2, 20000);
    QCOMPARE(costs.last().at(0).value<views::CostSnapshotPtr>()->jobId, newer);
    QTRY_VERIFY(statesOf(states, older).contains(views::JobState::Superseded));

    // A cost job of a check that a newer check replaced is dropped.
    quint64 stale = session.requestCost(snap);
    session.requestCheck("k.cake", kBad); // refused: no cost job of its own
    QTRY_COMPARE_WITH_TIMEOUT(checks.count(), 2, 20000);
    QTRY_VERIFY(statesOf(states, stale).contains(views::JobState::Superseded));
    session.waitForIdle();
    QCoreApplication::processEvents();
    QCOMPARE(costs.count(), 2);
  }

  void lowerJobsSupersedeAndPtxasFollows() {
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy checks(&session, &views::CompileSession::checkFinished);
    QSignalSpy lowered(&session, &views::CompileSession::lowerFinished);
    QSignalSpy ptxas(&session, &views::CompileSession::ptxasFinished);
    QSignalSpy states(&session, &views::CompileSession::jobStateChanged);
    QString path = test::corpusPath(kHopper);
    session.requestCheck(path, test::readFile(path));
    QVERIFY(checks.wait(20000));
    auto snap = checks.last().at(0).value<views::CheckSnapshotPtr>();
    quint64 first = session.requestLower(snap, views::LoweredEmit::LlvmIr);
    quint64 second = session.requestLower(snap, views::LoweredEmit::Ptx);
    QTRY_COMPARE_WITH_TIMEOUT(lowered.count(), 1, 30000);
    auto l = lowered.last().at(0).value<views::LowerSnapshotPtr>();
    QCOMPARE(l->jobId, second);
    QCOMPARE(l->kind, views::LoweredEmit::Ptx);
    // The first was cancelled by the second request; its result never arrives.
    QTRY_VERIFY(statesOf(states, first).contains(views::JobState::Cancelled));
    // PTX is followed by its ptxas job (a report, or "CUDA toolkit not found").
    QTRY_COMPARE_WITH_TIMEOUT(ptxas.count(), 1, 120000);
    auto p = ptxas.last().at(0).value<views::PtxasSnapshotPtr>();
    QCOMPARE(p->lowerJob, second);
    if (!lower::findCudaTool("ptxas")) {
      QVERIFY(!p->toolFound);
      QVERIFY(p->message.contains("CUDA toolkit not found"));
    } else {
      QVERIFY2(p->ok, qPrintable(p->message + "\n" + p->log));
      QCOMPARE(p->entries.size(), 1);
      QVERIFY(p->entries[0].registers > 0);
      QCOMPARE(p->derivedSmemBytes, qint64(163904));
      QCOMPARE(p->roles.size(), 2);
      for (const lower::RoleNeed& r : p->roles)
        QVERIFY2(r.need > 0 && r.need <= r.budget, r.role.c_str());
    }
  }

  void cancelDropsPtxasAndKillsIt() {
    if (!lower::findCudaTool("ptxas"))
      QSKIP("no CUDA toolkit: nothing to kill");
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy checks(&session, &views::CompileSession::checkFinished);
    QSignalSpy lowered(&session, &views::CompileSession::lowerFinished);
    QSignalSpy ptxas(&session, &views::CompileSession::ptxasFinished);
    QSignalSpy states(&session, &views::CompileSession::jobStateChanged);
    QString path = test::corpusPath(kHopper);
    session.requestCheck(path, test::readFile(path));
    QVERIFY(checks.wait(20000));
    session.requestLower(checks.last().at(0).value<views::CheckSnapshotPtr>(),
                         views::LoweredEmit::Ptx);
    QVERIFY(lowered.wait(30000));
    quint64 job = session.latestPtxasJob();
    QVERIFY(job != 0);
    QVERIFY(session.cancelJob(job));
    QVERIFY(!session.cancelJob(job)); // once
    session.waitForIdle();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QCOMPARE(ptxas.count(), 0);
    QCOMPARE(statesOf(states, job).last(), views::JobState::Cancelled);
    QCOMPARE(session.activeJobs(), 0);

    // A timeout kills the tool too (the job ends with the reason, delivered).
    session.setToolTimeout(0.001);
    session.requestPtxas(lowered.last().at(0).value<views::LowerSnapshotPtr>());
    QVERIFY(ptxas.wait(30000));
    auto p = ptxas.last().at(0).value<views::PtxasSnapshotPtr>();
    QVERIFY(p->timedOut);
    QVERIFY(p->message.contains("timeout"));
  }

  // ---------------------------------------------------------------- jobs model
  void jobsModel() {
    views::JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    views::CompileSession session;
    model.setSession(&session);
    session.setCompiler(test::compiler());
    QSignalSpy costs(&session, &views::CompileSession::costFinished);
    session.requestCheck("k.cake", kGood);
    QVERIFY(costs.wait(20000));
    QTRY_COMPARE(model.activeCount(), 0);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(views::JobsModel::ColumnCount));
    QCOMPARE(model.index(0, views::JobsModel::KindColumn).data().toString(),
             QStringLiteral("check"));
    QCOMPARE(model.index(1, views::JobsModel::KindColumn).data().toString(),
             QStringLiteral("cost"));
    QCOMPARE(model.index(0, views::JobsModel::StateColumn).data().toString(),
             QStringLiteral("finished"));
    QCOMPARE(model.index(1, 0).data(views::JobsModel::ProgressRole).toInt(), 100);
    QVERIFY(model.index(0, views::JobsModel::LogColumn).data().toString().startsWith("accepted"));
    QVERIFY(model.index(1, views::JobsModel::LogColumn).data().toString().startsWith("predicted"));

    // Driven directly: queued → running (indeterminate) → cancelled is final.
    model.addJob({100, views::JobKind::Ptxas, "ptxas x"});
    int row = model.rowOf(100);
    QCOMPARE(row, 2);
    QCOMPARE(model.state(row), views::JobState::Queued);
    QVERIFY(model.index(row, 0).data(views::JobsModel::ActiveRole).toBool());
    model.setState(100, views::JobState::Running, {});
    QCOMPARE(model.index(row, 0).data(views::JobsModel::ProgressRole).toInt(), -1);
    model.setState(100, views::JobState::Cancelled, "cancel requested");
    model.setState(100, views::JobState::Finished, "late result");
    QCOMPARE(model.state(row), views::JobState::Cancelled);
    // B13: a cancelled job is not complete: no 100 %, a dash.
    QCOMPARE(model.index(row, 0).data(views::JobsModel::ProgressRole).toInt(), -2);
    QCOMPARE(model.index(row, views::JobsModel::ProgressColumn).data().toString(),
             QStringLiteral("—"));
    QVERIFY(!model.index(row, 0).data(views::JobsModel::ActiveRole).toBool());
    // Bounded: the oldest finished rows go first.
    model.setMaxRows(3);
    model.addJob({101, views::JobKind::Check, "check y"});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.rowOf(1), -1);
    QCOMPARE(model.jobId(2), quint64(101));
  }

  void cancelledCheckIsDropped() {
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy checks(&session, &views::CompileSession::checkFinished);
    QSignalSpy states(&session, &views::CompileSession::jobStateChanged);
    quint64 id = session.requestCheck("k.cake", kGood);
    QVERIFY(session.cancelJob(id));
    session.waitForIdle();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QCOMPARE(checks.count(), 0);
    QCOMPARE(statesOf(states, id).last(), views::JobState::Cancelled);
    QVERIFY(!session.cancelJob(id));
  }
};

QTEST_GUILESS_MAIN(TestPerf)
#include "tst_perf.moc"
