// View-library tests: the findings model passes QAbstractItemModelTester; the compile façade
// runs jobs in the background and drops superseded results.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/CompileSession.h"
#include "cake/views/FindingsModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

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

  void sessionReportsInvalidData() {
    views::CompileSession session;
    QSignalSpy failed(&session, &views::CompileSession::compilerFailed);
    session.start({"/nonexistent/primitives", "/nonexistent/targets"});
    QVERIFY(failed.wait(10000));
  }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
