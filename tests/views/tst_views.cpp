// View-library tests: the findings and buffers models pass QAbstractItemModelTester; the compile
// façade runs jobs in the background, drops superseded results and ships the view data; the
// shared selection resolves lines, events, findings and buffers and signals only changes.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"
#include "cake/views/BuffersModel.h"
#include "cake/views/CompileSession.h"
#include "cake/views/ExampleGroups.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/RecentFiles.h"
#include "cake/views/SelectionModel.h"
#include "cake/views/ViewPalette.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <functional>

using namespace cake;

namespace {
std::shared_ptr<const driver::Compiler> loadCompiler() {
  static std::shared_ptr<const driver::Compiler> c(driver::Compiler::load(
      {std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
       std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
       std::string(CAKE_SOURCE_DIR) + "/compiler/rules"}));
  return c;
}

const char* kBad = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                   "  reg x : f32[4] scope=thread\n  on r {\n    ew.fil x value=0.0\n"
                   "    ew.fill y value=0.0\n  }\n}\n";
const char* kGood = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                    "  reg x : f32[4] scope=thread\n  on r {\n    ew.fill x value=0.0\n  }\n}\n";
} // namespace

class TestViews : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void recentFilesAreAbsolute() {
    // B4: Open Recent stored relative paths that failed when started from another folder.
    QTemporaryDir dir;
    QSettings s(dir.filePath(QStringLiteral("recent.ini")), QSettings::IniFormat);
    s.setValue(QStringLiteral("recentFiles"),
               QStringList{QStringLiteral("relative/old.cake"), QStringLiteral("/abs/x.cake")});
    QCOMPARE(views::recentFiles(s), QStringList{QStringLiteral("/abs/x.cake")});

    QFile f(dir.filePath(QStringLiteral("a.cake")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QString canonical = QFileInfo(f.fileName()).canonicalFilePath();
    QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    views::addRecentFile(s, QStringLiteral("a.cake"));
    views::addRecentFile(s, QStringLiteral("./sub/../a.cake")); // another spelling: one entry
    QDir::setCurrent(before);
    QStringList recent = views::recentFiles(s);
    QCOMPARE(recent.first(), canonical);
    QCOMPARE(recent.count(canonical), 1);
    QVERIFY(QDir::isAbsolutePath(recent.first()));

    for (int i = 0; i < 12; ++i)
      views::addRecentFile(s, QStringLiteral("/abs/f%1.cake").arg(i));
    recent = views::recentFiles(s);
    QCOMPARE(recent.size(), 10);
    QCOMPARE(recent.first(), QStringLiteral("/abs/f11.cake"));
  }

  void findingsModel() {
    views::FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto snap = std::make_shared<views::CheckSnapshot>();
    snap->path = "k.cake";
    snap->result = loadCompiler()->check("k.cake", kBad);
    model.setSnapshot(snap);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(views::FindingsModel::ColumnCount));
    QCOMPARE(model.index(0, views::FindingsModel::CodeColumn).data().toString(),
             QStringLiteral("sem-unknown-primitive"));
    QCOMPARE(model.index(0, views::FindingsModel::LocationColumn).data().toString(),
             QStringLiteral("6:5"));
    QCOMPARE(model.index(1, 0).data(views::FindingsModel::LineRole).toInt(), 7);
    QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains("fix: did you mean"));
    QCOMPARE(model.blockingCount(), 2);
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void dataSymlinkLoopFailsCleanly_data() {
    QTest::addColumn<QString>("dir");
    QTest::newRow("primitives") << "primitives";
    QTest::newRow("targets") << "targets";
    QTest::newRow("rules") << "rules";
  }

  // Issue 11 item 5.4: a symlink loop in a data directory threw a filesystem_error out of the
  // loader thread, which QFuture::result() rethrew on the GUI thread: the workbench aborted.
  void dataSymlinkLoopFailsCleanly() {
    QFETCH(QString, dir);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    std::filesystem::path root = tmp.path().toStdString();
    for (const char* d : {"primitives", "targets", "rules"})
      std::filesystem::copy(std::filesystem::path(CAKE_SOURCE_DIR) / "compiler" / d, root / d,
                            std::filesystem::copy_options::recursive);
    std::filesystem::path loop = root / dir.toStdString() / "loop-a.json";
    std::filesystem::create_symlink("loop-b.json", loop);
    std::filesystem::create_symlink("loop-a.json", root / dir.toStdString() / "loop-b.json");
    views::CompileSession session;
    QSignalSpy ready(&session, &views::CompileSession::compilerReady);
    QSignalSpy failed(&session, &views::CompileSession::compilerFailed);
    session.start({(root / "primitives").string(), (root / "targets").string(),
                   (root / "rules").string()});
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QCOMPARE(ready.count(), 0);
    QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(QString::fromStdString(loop.string())), qPrintable(message));
    QVERIFY2(message.contains("symbolic links"), qPrintable(message));
  }

  void sessionDropsSupersededJobs() {
    views::CompileSession session;
    QSignalSpy ready(&session, &views::CompileSession::compilerReady);
    QSignalSpy finished(&session, &views::CompileSession::checkFinished);
    QSignalSpy jobs(&session, &views::CompileSession::jobFinished);
    // Requests made before the compiler is loaded are kept (only the newest).
    session.requestCheck("a.cake", kBad);
    session.start({std::string(CAKE_SOURCE_DIR) + "/compiler/primitives",
                   std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
       std::string(CAKE_SOURCE_DIR) + "/compiler/rules"});
    QVERIFY(ready.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    // Three quick edits: only the last result is delivered.
    quint64 first = session.requestCheck("k.cake", kBad);
    session.requestCheck("k.cake", kBad);
    quint64 last = session.requestCheck("k.cake", kGood);
    QTRY_COMPARE_WITH_TIMEOUT(jobs.count(), 4, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 10000);
    auto snap = finished.last().at(0).value<views::CheckSnapshotPtr>();
    QCOMPARE(snap->jobId, last);
    QVERIFY(snap->result.accepted);
    int superseded = 0;
    for (const auto& args : jobs)
      superseded += args.at(2).toBool();
    QCOMPARE(superseded, 2);
    QVERIFY(first < last);
  }

  void sessionSnapshotCarriesViewData() {
    views::CompileSession session;
    session.setCompiler(test::compiler());
    QSignalSpy finished(&session, &views::CompileSession::checkFinished);
    QString path = test::corpusPath("hopper_gemm/gemm_ws.cake");
    session.requestCheck(path, test::readFile(path));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    auto snap = finished.first().at(0).value<views::CheckSnapshotPtr>();
    QVERIFY(snap->views);
    QCOMPARE(snap->views->roles, QStringList({"producer", "consumer"}));
    QCOMPARE(snap->views->graph.nodes.size(), 25);
    QCOMPARE(snap->views->timeline.lanes.size(), 2);
    QVERIFY(!snap->views->timeline.blocks.isEmpty());
    QCOMPARE(snap->views->memory.limit, 232448);
    QVERIFY(snap->checkMs <= snap->elapsedMs);
    // Ops know their source line, roles and shared-memory buffers.
    int tma = snap->views->opAtLine.value(61, -1);
    QVERIFY(tma >= 0);
    QCOMPARE(snap->views->ops[tma].name, QStringLiteral("tma.load"));
    QCOMPARE(snap->views->ops[tma].roles, QVector<int>({0}));
    QCOMPARE(snap->views->ops[tma].smemBuffers, QVector<int>({3}));
    QCOMPARE(snap->views->bufferNames[3], QStringLiteral("a_s"));
  }

  void selectionModel() {
    auto snap = test::corpusSnapshot("hopper_gemm/gemm_ws.cake");
    const views::ViewData& d = *snap->views;
    views::SelectionModel sel;
    QSignalSpy changed(&sel, &views::SelectionModel::selectionChanged);
    sel.setSnapshot(snap);
    QCOMPARE(changed.count(), 0);
    // A line with an op (tma.load a_s, line 61): the op and its shared-memory buffer.
    sel.selectLine(61, views::SelectionOrigin::Editor);
    QCOMPARE(changed.count(), 1);
    auto s = changed.last().at(0).value<views::Selection>();
    QCOMPARE(s.op, d.opAtLine.value(61));
    QCOMPARE(s.role, -1);
    QCOMPARE(d.bufferNames.value(s.buffer), QStringLiteral("a_s"));
    QCOMPARE(changed.last().at(1).value<views::SelectionOrigin>(), views::SelectionOrigin::Editor);
    // The same selection again: no signal (views can call select* freely without loops).
    sel.selectLine(61, views::SelectionOrigin::Graph);
    sel.selectOp(s.op, -1, views::SelectionOrigin::Graph);
    QCOMPARE(changed.count(), 1);
    // A graph node: op in one role.
    int cta = d.opAtLine.value(53);
    QCOMPARE(d.ops[cta].name, QStringLiteral("cta.sync"));
    sel.selectOp(cta, 1, views::SelectionOrigin::Graph);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(sel.current().role, 1);
    QCOMPARE(sel.current().buffer, -1);
    // The editor on the same line keeps the role.
    sel.selectLine(53, views::SelectionOrigin::Editor);
    QCOMPARE(changed.count(), 2);
    // A declaration line selects its buffer.
    sel.selectLine(37, views::SelectionOrigin::Editor);
    QCOMPARE(sel.current().op, -1);
    QCOMPARE(d.bufferNames.value(sel.current().buffer), QStringLiteral("c_s"));
    QCOMPARE(sel.sourceOf(sel.current()).line, 37);
    // A trace event: its op and role.
    const auto& trace = snap->result.verification.trace;
    int wait = -1;
    for (std::size_t i = 0; i < trace.size() && wait < 0; ++i)
      if (trace[i].kind == verify::TraceEvent::Kind::Wait && trace[i].role == 1)
        wait = int(i);
    QVERIFY(wait >= 0);
    sel.selectEvent(wait, views::SelectionOrigin::Timeline);
    QCOMPARE(sel.current().event, wait);
    QCOMPARE(sel.current().op, int(trace[std::size_t(wait)].op));
    QCOMPARE(sel.current().role, 1);
    QCOMPARE(sel.sourceOf(sel.current()).line, d.ops[sel.current().op].span.line);
    // A finding on the kernel line has no op (a static one-role kernel: its residency report;
    // the persistent GEMM has no finding).
    views::SelectionModel onKernel;
    auto good = test::snapshotOf("k.cake", kGood);
    QVERIFY(!good->result.diagnostics.empty());
    onKernel.setSnapshot(good);
    onKernel.selectFinding(0, views::SelectionOrigin::Findings);
    QCOMPARE(onKernel.current().finding, 0);
    QCOMPARE(onKernel.current().op, -1);
    // Blank line: nothing.
    sel.selectLine(2, views::SelectionOrigin::Editor);
    QVERIFY(sel.current().isEmpty());
    int before = int(changed.count());
    sel.clear(views::SelectionOrigin::Editor);
    QCOMPARE(int(changed.count()), before);
    // A new snapshot keeps an op selection on its line.
    sel.selectLine(61, views::SelectionOrigin::Editor);
    before = int(changed.count());
    sel.setSnapshot(test::corpusSnapshot("hopper_gemm/gemm_ws.cake"));
    QCOMPARE(int(changed.count()), before);
    QCOMPARE(sel.current().op, d.opAtLine.value(61));
    // A snapshot where the line holds no op clears it (origin Program).
    sel.setSnapshot(test::snapshotOf("k.cake", kGood));
    QVERIFY(sel.current().isEmpty());
    QCOMPARE(changed.last().at(1).value<views::SelectionOrigin>(), views::SelectionOrigin::Program);
  }

  void findingsOnOps() {
    auto snap = test::corpusSnapshot("negative/wait-cycle.cake");
    const views::ViewData& d = *snap->views;
    int blocking = -1;
    for (std::size_t i = 0; i < snap->result.diagnostics.size(); ++i)
      if (snap->result.diagnostics[i].code == "ps-wait-cycle")
        blocking = int(i);
    QVERIFY(blocking >= 0);
    int op = d.findingOp[blocking];
    QVERIFY(op >= 0);
    QCOMPARE(d.ops[op].name, QStringLiteral("mbarrier.try_wait"));
    QCOMPARE(d.ops[op].severity, int(Severity::Blocking));
    QVERIFY(d.ops[op].findings.contains(blocking));
    views::SelectionModel sel;
    sel.setSnapshot(snap);
    sel.selectFinding(blocking, views::SelectionOrigin::Findings);
    QCOMPARE(sel.current().op, op);
  }

  void buffersModel() {
    views::BuffersModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSnapshot(test::corpusSnapshot("hopper_gemm/gemm_ws.cake"));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, views::BuffersModel::NameColumn).data().toString(), QStringLiteral("a_s"));
    QCOMPARE(model.index(1, views::BuffersModel::PlacementColumn).data().toString(),
             QStringLiteral("bytes 65536..131072"));
    QCOMPARE(model.index(0, views::BuffersModel::StagesColumn).data().toLongLong(), 4);
    QCOMPARE(model.index(0, views::BuffersModel::ConflictColumn).data().toString(), QStringLiteral("not modelled"));
    QCOMPARE(model.index(2, views::BuffersModel::ConflictColumn).data().toString(), QStringLiteral("conflict-free"));
    QCOMPARE(model.rowOfBuffer(model.index(2, 0).data(views::BuffersModel::BufferRole).toInt()), 2);
    // A Blackwell kernel lists its tensor memory too.
    model.setSnapshot(test::corpusSnapshot("blackwell_gemm/gemm_tcgen05.cake"));
    bool tmem = false;
    for (int r = 0; r < model.rowCount(); ++r)
      tmem = tmem || model.index(r, views::BuffersModel::SpaceColumn).data().toString() == QLatin1String("tmem");
    QVERIFY(tmem);
    model.setSnapshot(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void examplesGrouped() {
    // B16: the Examples menu was the manifest's 57+ cases, flat and unsorted. Grouped: expert
    // kernels with their target, negatives by the family of their finding, the numerical cases,
    // proposals' examples; every case exactly once, each group sorted.
    QString corpus = QStringLiteral(CAKE_CORPUS_DIR);
    const QList<views::ExampleGroup> groups = views::groupExamples(corpus);
    QFile manifest(QDir(corpus).filePath("manifest.json"));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    const QJsonArray cases =
        QJsonDocument::fromJson(manifest.readAll()).object()["cases"].toArray();
    // Natural order: the label's digit runs compare as numbers (checked on a padded copy).
    auto padded = [](QString s) {
      static const QRegularExpression digits("\\d+");
      QString out;
      qsizetype at = 0;
      for (auto it = digits.globalMatch(s); it.hasNext();) {
        QRegularExpressionMatch m = it.next();
        out += s.mid(at, m.capturedStart() - at).toLower() + m.captured().rightJustified(12, '0');
        at = m.capturedEnd();
      }
      return out + s.mid(at).toLower();
    };
    QStringList titles;
    QSet<QString> paths;
    int total = 0;
    std::function<void(const views::ExampleGroup&)> visit = [&](const views::ExampleGroup& g) {
      QVERIFY2(!g.entries.isEmpty() || !g.groups.isEmpty(), qPrintable(g.title));
      for (int i = 1; i < g.entries.size(); ++i)
        QVERIFY2(padded(g.entries[i - 1].label) <= padded(g.entries[i].label),
                 qPrintable(g.entries[i - 1].label + " > " + g.entries[i].label));
      for (const views::ExampleEntry& e : g.entries) {
        QVERIFY2(QFileInfo(e.path).isAbsolute() && QFileInfo::exists(e.path), qPrintable(e.path));
        QVERIFY2(!paths.contains(e.path), qPrintable(e.path));
        paths.insert(e.path);
      }
      for (const views::ExampleGroup& sub : g.groups)
        visit(sub);
    };
    for (const views::ExampleGroup& g : groups) {
      titles << g.title;
      total += g.size();
      visit(g);
    }
    QCOMPARE(titles.first(), QStringLiteral("Expert kernels"));
    QVERIFY(titles.contains("Negative kernels"));
    QVERIFY(titles.contains("Numerical (wrong results)"));
    QCOMPARE(titles.last(), QStringLiteral("Proposals' examples"));
    int proposalExamples = 0;
    QDirIterator it(QDir(corpus).filePath("proposals"), {"*.cake"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
      proposalExamples += it.next().contains("/examples/");
    QVERIFY(proposalExamples > 0);
    QCOMPARE(total, int(cases.size()) + proposalExamples);
    // Expert kernels name their target; the Hopper GEMM is sm_90a.
    const views::ExampleGroup& expert = groups.first();
    QVERIFY(expert.groups.isEmpty());
    for (const views::ExampleEntry& e : expert.entries)
      QVERIFY2(e.label.contains(QRegularExpression("\\(sm_\\d+a?\\)$")), qPrintable(e.label));
    auto hopper =
        std::find_if(expert.entries.begin(), expert.entries.end(),
                     [](const views::ExampleEntry& e) { return e.id == "hopper_gemm_ws_bf16"; });
    QVERIFY(hopper != expert.entries.end());
    QCOMPARE(hopper->label, QStringLiteral("hopper_gemm_ws_bf16 (sm_90a)"));
    // Negatives: one subgroup per family, each entry's first expected code has that prefix.
    const views::ExampleGroup& negative = groups[titles.indexOf("Negative kernels")];
    QVERIFY(negative.entries.isEmpty());
    QHash<QString, QString> firstCode;
    for (const QJsonValue& v : cases)
      if (!v["expect"]["codes"].toArray().isEmpty())
        firstCode.insert(v["id"].toString(), v["expect"]["codes"][0].toString());
    QStringList families;
    for (const views::ExampleGroup& sub : negative.groups) {
      families << sub.title;
      QString prefix = sub.title.section('(', 1).chopped(1); // "Program safety (ps-)" -> "ps-"
      for (const views::ExampleEntry& e : sub.entries)
        QVERIFY2(firstCode.value(e.id).startsWith(prefix), qPrintable(e.id + " in " + sub.title));
    }
    QVERIFY(families.contains("Program safety (ps-)"));
    QVERIFY(families.contains("Hardware conformance (hw-)"));
    QVERIFY(families.contains("Data consistency (dc-)"));

    // A folder without a manifest: its kernels, sorted naturally (2 before 10).
    QTemporaryDir tmp;
    for (const char* name : {"k10.cake", "k2.cake", "a.cake"}) {
      QFile f(QDir(tmp.path()).filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("kernel k target=sm_80 {\n}\n");
    }
    QList<views::ExampleGroup> plain = views::groupExamples(tmp.path());
    QCOMPARE(plain.size(), 1);
    QStringList labels;
    for (const views::ExampleEntry& e : plain[0].entries)
      labels << e.label;
    QCOMPARE(labels, QStringList({"a", "k2", "k10"}));
    QCOMPARE(views::kernelTarget(plain[0].entries[0].path), QStringLiteral("sm_80"));
  }
  void viewPaletteContrast() {
    // B11: one palette for the painted views, light and dark; every text colour readable on
    // the surfaces it is drawn on (WCAG contrast: 4.5 for text, 3 for marks and lines).
    auto luminance = [](QColor c) {
      auto lin = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
      };
      return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
    };
    auto contrast = [&](QColor a, QColor b) {
      double la = luminance(a), lb = luminance(b);
      return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
    };
    QPalette lightQt, darkQt;
    lightQt.setColor(QPalette::Base, Qt::white);
    darkQt.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    QVERIFY(!views::ViewPalette::forPalette(lightQt).dark);
    QVERIFY(views::ViewPalette::forPalette(darkQt).dark);
    for (const views::ViewPalette* p :
         {&views::ViewPalette::light(), &views::ViewPalette::darkPalette()}) {
      const char* which = p->dark ? "dark" : "light";
      QVERIFY2(p->dark == (p->canvas.lightness() < 128), which);
      for (QColor surface : {p->canvas, p->band[0], p->band[1], p->header}) {
        QVERIFY2(contrast(p->text, surface) >= 7.0, which);
        QVERIFY2(contrast(p->mutedText, surface) >= 4.5, which);
        for (int s = 0; s < 3; ++s)
          QVERIFY2(contrast(p->severity(s), surface) >= 3.0, which);
        QVERIFY2(contrast(p->selection, surface) >= 3.0, which);
      }
      for (int role = -1; role < 6; ++role) {
        QVERIFY2(contrast(p->text, p->role(role)) >= 4.5, which);
        QVERIFY2(contrast(p->roleText(role), p->role(role)) >= 3.0, which);
      }
      QVERIFY2(contrast(p->text, p->selectionFill) >= 4.5, which);
      QVERIFY2(contrast(p->text, p->match) >= 4.5, which);
      for (const char* op :
           {"mbarrier.arrive", "tma.load", "wgmma.mma_async", "ld.shared", "bar.sync", "x"})
        QVERIFY2(contrast(p->text, p->opFamily(op)) >= 4.5,
                 qPrintable(QString("%1 %2").arg(which, op)));
      for (int b = 0; b < 8; ++b)
        QVERIFY2(contrast(p->text, p->buffer(b)) >= 4.5 && contrast(p->text, p->chunk(b)) >= 4.5,
                 which);
      for (QColor edge : {p->edgeData, p->edgeRendezvous, p->syncTx, p->syncCommit, p->syncOther})
        QVERIFY2(contrast(edge, p->canvas) >= 3.0, which);
      // Edge labels in a shade of their edge's ink on a plate over the canvas; the cost share
      // on every node fill (GraphItems.cpp paints both).
      for (QColor ink : {p->edgeData, p->edgeRendezvous, p->syncTx, p->syncCommit, p->syncOther})
        QVERIFY2(contrast(p->labelText(ink), p->canvas) >= 4.5, which);
      for (int role = -1; role < 6; ++role)
        QVERIFY2(contrast(p->costText(), p->role(role)) >= 4.5, which);
      QVERIFY2(contrast(p->costText(), p->selectionFill) >= 4.5, which);
      QCOMPARE(views::ViewPalette::tint(p->selection, 30).alpha(), 30);
      QCOMPARE(views::ViewPalette::tint(p->selection, 30).rgb(), p->selection.rgb());
    }
    // The editor's severity colours are the light palette's (one source).
    for (int s = 0; s < 3; ++s)
      QCOMPARE(views::severityColor(s), views::ViewPalette::light().severity(s));
    // The variants differ where it matters.
    QVERIFY(views::ViewPalette::light().canvas != views::ViewPalette::darkPalette().canvas);
    QVERIFY(views::ViewPalette::light().role(0) != views::ViewPalette::darkPalette().role(0));
  }
  void sessionReportsInvalidData() {
    views::CompileSession session;
    QSignalSpy failed(&session, &views::CompileSession::compilerFailed);
    session.start({"/nonexistent/primitives", "/nonexistent/targets"});
    QVERIFY(failed.wait(10000));
  }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
