// The Proposals dock's data and controller: whose turn it is (one row per rule), the queue model
// through QAbstractItemModelTester, the readable definition, the evaluation job recorded in a
// workspace (the false positive's gate deltas included), and end to end through the controller:
// evaluate frag-xor, approve it as a reviewer who is not its author, and the session's compiler
// accepts its positive example.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"

#include "cake/Workspace/Workspace.h"
#include "cake/views/ProposalController.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cake;

namespace {

QString proposalsRoot() {
  return QStringLiteral(CAKE_CORPUS_DIR) + "/proposals";
}
QString proposalDir(const QString& name) {
  return proposalsRoot() + "/" + name;
}
QString manifest() {
  return QStringLiteral(CAKE_CORPUS_DIR) + "/manifest.json";
}

std::int64_t headOf(const QString& dir) {
  auto w = ws::Workspace::open(dir.toStdString(), ws::OpenMode::MustExist);
  if (!w)
    return -1;
  auto h = w->head();
  return h ? *h : -1;
}

} // namespace

class TestProposals : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void turn_data();
  void turn();
  void queueModel();
  void definitionRendered();
  void evaluationJob_data();
  void evaluationJob();
  void approveEndToEnd();
};

void TestProposals::turn_data() {
  QTest::addColumn<QString>("state");
  QTest::addColumn<bool>("evaluated");
  QTest::addColumn<QString>("blocked");
  QTest::addColumn<QString>("turn");
  QTest::newRow("unregistered") << "" << false << ""
                                << "needs evaluation";
  QTest::newRow("new, not evaluated") << "new" << false << "prop-not-evaluated"
                                      << "needs evaluation";
  QTest::newRow("evaluated, approvable") << "evaluated" << true << ""
                                         << "reviewer";
  QTest::newRow("evaluated, regressions") << "evaluated" << true << "prop-unaccepted-change"
                                          << "reviewer";
  QTest::newRow("head moved") << "evaluated" << true << "prop-stale-evaluation"
                              << "stale";
  QTest::newRow("content superseded") << "evaluated" << true << "prop-stale-content"
                                      << "stale";
  QTest::newRow("state stale") << "stale" << true << ""
                               << "stale";
  QTest::newRow("changes requested") << "changes-requested" << true << ""
                                     << "author: changes requested";
  QTest::newRow("approved") << "approved" << true << "prop-already-decided"
                            << "done";
  QTest::newRow("rejected") << "rejected" << true << "prop-already-decided"
                            << "done";
}

void TestProposals::turn() {
  QFETCH(QString, state);
  QFETCH(bool, evaluated);
  QFETCH(QString, blocked);
  QFETCH(QString, turn);
  QCOMPARE(views::proposalTurnName(views::proposalTurn(state, evaluated, blocked)), turn);
}

void TestProposals::queueModel() {
  views::ProposalQueueModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QTemporaryDir extra;
  QVERIFY(extra.isValid());
  // A broken folder next to the samples: listed as invalid, with why.
  QFile manifestFile(extra.filePath("proposal.json"));
  QVERIFY(manifestFile.open(QIODevice::WriteOnly));
  manifestFile.write("{\"kind\": \"primitive\"");
  manifestFile.close();
  model.setQueue(views::scanProposals({proposalsRoot()}, {extra.path()}, QString()));
  QCOMPARE(model.rowCount(), 4);
  QCOMPARE(model.columnCount(), int(views::ProposalQueueModel::ColumnCount));
  QStringList kinds, states, turns;
  for (int r = 0; r < model.rowCount(); ++r) {
    kinds << model.index(r, views::ProposalQueueModel::KindColumn).data().toString();
    states << model.index(r, views::ProposalQueueModel::StateColumn).data().toString();
    turns << model.index(r, views::ProposalQueueModel::TurnColumn).data().toString();
  }
  // Sorted by folder: the temporary folder (/tmp/...) sorts after the source tree's only when
  // the source tree is not under /tmp; find rows by folder instead.
  int frag = model.rowOf(proposalDir("frag-xor"));
  int broken = model.rowOf(extra.path());
  QVERIFY2(frag >= 0 && broken >= 0, qPrintable(kinds.join(',')));
  QCOMPARE(model.index(frag, 0).data().toString(),
           QStringLiteral("frag.xor: bitwise xor of two u32 register fragments (xor.b32)"));
  QCOMPARE(model.index(frag, views::ProposalQueueModel::KindColumn).data().toString(), "primitive");
  QCOMPARE(model.index(frag, views::ProposalQueueModel::StateColumn).data().toString(),
           "unregistered");
  QCOMPARE(model.index(frag, views::ProposalQueueModel::TurnColumn).data().toString(),
           "needs evaluation");
  QCOMPARE(model.index(frag, views::ProposalQueueModel::AuthorColumn).data().toString(),
           "E (agent)");
  QCOMPARE(model.index(broken, views::ProposalQueueModel::TurnColumn).data().toString(), "invalid");
  QVERIFY2(model.index(broken, 0).data(Qt::ToolTipRole).toString().contains("prop-json-syntax"),
           qPrintable(model.index(broken, 0).data(Qt::ToolTipRole).toString()));
  QCOMPARE(model.index(frag, 3).data(views::ProposalQueueModel::DirRole).toString(),
           proposalDir("frag-xor"));
  QCOMPARE(kinds.count("rule"), 2);
  model.setQueue({});
  QCOMPARE(model.rowCount(), 0);
}

void TestProposals::definitionRendered() {
  views::ProposalDetail d =
      views::buildProposalDetail(proposalDir("frag-xor"), QString(), manifest());
  QVERIFY2(d.loadFindings.isEmpty(), qPrintable(d.loadFindings));
  // Operands, constraints, effects, cost and the lowering template, as text a reviewer reads.
  for (const char* part :
       {"<b>dst</b>", ">u32, i32<", "dc-shape-mismatch", "dc-dtype-mismatch", "read (operand a)",
        "write (operand dst)", "cost.class", ">alu<", "hardware.ptx"})
    QVERIFY2(
        d.definitionHtml.contains(QLatin1String(part)) ||
            d.definitionHtml.contains(QString(QLatin1String(part)).remove("<b>").remove("</b>")),
        part);
  QCOMPARE(d.loweringTemplate, QStringLiteral("strategy: template\nper: element\nptx:\n"
                                              "  xor.b32 {dst.elem}, {a.elem}, {b.elem};"));
  QCOMPARE(d.previewExample, proposalDir("frag-xor") + "/examples/positive/xor.cake");
  QCOMPARE(d.evidence.size(), 2);
  QCOMPARE(d.evidence[0].target, proposalDir("frag-xor") + "/examples/positive/xor.cake");
  QVERIFY(d.evidence[1].target.isEmpty());
  QCOMPARE(d.blockedCode, QStringLiteral("no-workspace"));

  views::ProposalDetail rule =
      views::buildProposalDetail(proposalDir("reg-fragment-limit"), QString(), manifest());
  for (const char* part : {"hw-reg-fragment-size", "hardware-conformance", "blocking",
                           "bytes(x) &lt;= 1020", "{&quot;declaration&quot;:&quot;reg&quot;}"})
    QVERIFY2(rule.definitionHtml.contains(QLatin1String(part)), part);
  QVERIFY(rule.loweringTemplate.isEmpty());
}

void TestProposals::evaluationJob_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("verdict");
  QTest::addColumn<int>("newlyRejected");
  QTest::newRow("frag-xor") << "frag-xor"
                            << "clean" << 0;
  QTest::newRow("global-vector-align") << "global-vector-align"
                                       << "clean" << 0;
  // The false positive: accepted corpus kernels refused by the wrong rule (expert kernels with
  // large fragments, the split-KV decode, the ping-pong and the 2-CTA GEMMs and
  // the FA4-style attention included, and the two
  // GEMM numerical negatives, which the verifier accepts).
  QTest::newRow("reg-fragment-limit") << "reg-fragment-limit"
                                      << "regressions" << 16;
}

void TestProposals::evaluationJob() {
  QFETCH(QString, name);
  QFETCH(QString, verdict);
  QFETCH(int, newlyRejected);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QString wsDir = dir.filePath("ws");
  views::CompileSession session;
  session.start(test::dataPaths(), wsDir);
  views::ProposalController controller(&session);
  controller.setWorkspace(wsDir);
  controller.setManifest(manifest());
  QSignalSpy evaluated(&controller, &views::ProposalController::evaluationFinished);
  QSignalSpy queued(&session, &views::CompileSession::jobQueued);
  controller.evaluate(proposalDir(name));
  // The evaluation is a job of the jobs panel.
  QVERIFY(!queued.isEmpty());
  QCOMPARE(queued.first().at(0).value<views::JobInfo>().kind, views::JobKind::Evaluate);
  QVERIFY(evaluated.wait(120000));
  QCOMPARE(evaluated.first().at(2).toString(), QString());
  QCOMPARE(evaluated.first().at(1).toString(), verdict);
  // Recorded as `cake proposal evaluate --workspace` records it.
  auto w = ws::Workspace::open(wsDir.toStdString(), ws::OpenMode::MustExist);
  QVERIFY(w);
  auto records = w->proposals();
  QVERIFY(records);
  QCOMPARE(records->size(), size_t(1));
  auto evaluations = w->evaluations(records->front().hash);
  QVERIFY(evaluations);
  QCOMPARE(evaluations->size(), size_t(1));

  views::ProposalDetail d = views::buildProposalDetail(proposalDir(name), wsDir, manifest());
  QVERIFY(d.evaluated);
  QCOMPARE(d.verdict, verdict);
  QVERIFY(d.gateRan);
  int rejected = 0;
  for (const views::ProposalDeltaRow& r : d.deltas)
    if (r.group.startsWith(QLatin1String("newly_rejected"))) {
      ++rejected;
      QVERIFY2(QFileInfo::exists(r.path), qPrintable(r.caseId));
    }
  QCOMPARE(rejected, newlyRejected);
  if (newlyRejected > 0) {
    // One row per case, all its groups: the refused kernels first, then the negative corpus
    // kernels that gain the rule's finding.
    QCOMPARE(d.deltas.first().group, QStringLiteral("newly_rejected, changed_findings, "
                                                    "changed_predictions, changed_code"));
    // 62 of the 88 cases of session 4; the 13 cluster and run-time-bound cases (3 expert kernels,
    // 10 negatives), the 2 programmatic-dependent-launch cases, the 3 split-KV decode cases (the
    // kernel and its 2 negatives), the 3 ping-pong cases (the GEMM and its 2 refused twins) the
    // 5 CTA-pair cases (the 2-CTA GEMM and 4 negatives) and the FA4-style kernel with its 3
    // negatives all change too.
    QCOMPARE(d.deltas.size(), 92);
    QCOMPARE(d.mismatchedAfter, 92);
  }
  QCOMPARE(d.examples.size(), 2);
  for (const views::ProposalExampleRow& x : d.examples)
    QVERIFY2(x.ok, qPrintable(x.path + ": " + x.problem));
  if (newlyRejected > 0) {
    QVERIFY(!d.canApprove);
    QCOMPARE(d.blockedCode, QStringLiteral("prop-unaccepted-change"));
    // A changed case before (head) and after (with the rule): accepted, then refused.
    QSignalSpy compared(&controller, &views::ProposalController::caseCompared);
    controller.open(proposalDir(name));
    controller.compareCase(d.deltas.first().caseId, d.deltas.first().path);
    QVERIFY(compared.wait(60000));
    auto c = compared.first().at(0).value<views::CaseComparisonPtr>();
    QVERIFY2(c->error.isEmpty(), qPrintable(c->error));
    QVERIFY(c->acceptedBefore);
    QVERIFY(!c->acceptedAfter);
    QVERIFY2(c->after.join('\n').contains("hw-reg-fragment-size"), qPrintable(c->after.join('\n')));
    QVERIFY(!c->before.join('\n').contains("hw-reg-fragment-size"));
  } else {
    QVERIFY2(d.canApprove, qPrintable(d.blockedCode + ": " + d.blockedMessage));
  }
  session.waitForIdle();
}

void TestProposals::approveEndToEnd() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QString wsDir = dir.filePath("ws");
  views::CompileSession session;
  QSignalSpy ready(&session, &views::CompileSession::compilerReady);
  session.start(test::dataPaths(), wsDir);
  QVERIFY(ready.wait(60000));
  QCOMPARE(session.workspaceRevision(), qint64(1));
  QString example = proposalDir("frag-xor") + "/examples/positive/xor.cake";
  QString text = test::readFile(example);
  QSignalSpy checked(&session, &views::CompileSession::checkFinished);
  session.requestCheck(example, text);
  QVERIFY(checked.wait(60000));
  QVERIFY2(!checked.last().at(0).value<views::CheckSnapshotPtr>()->result.accepted,
           "frag.xor must be unknown before the approval");

  views::ProposalController controller(&session);
  controller.setWorkspace(wsDir);
  controller.setManifest(manifest());
  QSignalSpy evaluated(&controller, &views::ProposalController::evaluationFinished);
  controller.evaluate(proposalDir("frag-xor"));
  QVERIFY(evaluated.wait(120000));
  QCOMPARE(evaluated.first().at(1).toString(), QStringLiteral("clean"));

  QSignalSpy reviewed(&controller, &views::ProposalController::reviewFinished);
  // The author approving their own proposal is refused, and nothing is installed.
  controller.review(proposalDir("frag-xor"), {"approve", "E", "self", {}});
  QVERIFY(reviewed.wait(60000));
  QCOMPARE(reviewed.last().at(2).toString(), QStringLiteral("prop-self-approval"));
  QCOMPARE(headOf(wsDir), std::int64_t(1));

  ready.clear();
  controller.review(proposalDir("frag-xor"), {"approve", "alice", "xor.b32 is right", {}});
  QVERIFY(reviewed.wait(60000));
  QCOMPARE(reviewed.last().at(2).toString(), QString());
  QCOMPARE(headOf(wsDir), std::int64_t(2));
  // The session reloads with the new head; the example is now accepted.
  QVERIFY(ready.wait(60000));
  QCOMPARE(session.workspaceRevision(), qint64(2));
  session.requestCheck(example, text);
  QVERIFY(checked.wait(60000));
  auto snap = checked.last().at(0).value<views::CheckSnapshotPtr>();
  QVERIFY2(snap->result.accepted, qPrintable(QString::number(snap->result.diagnostics.size())));

  views::ProposalDetail d = views::buildProposalDetail(proposalDir("frag-xor"), wsDir, manifest());
  QCOMPARE(d.entry.state, QStringLiteral("approved"));
  QCOMPARE(views::proposalTurnName(d.entry.turn), QStringLiteral("done"));
  QVERIFY(!d.canApprove);
  QCOMPARE(d.votes.size(), 1);
  QCOMPARE(d.votes.first().reviewer, QStringLiteral("alice"));
  session.waitForIdle();
}

QTEST_GUILESS_MAIN(TestProposals)
#include "tst_proposals.moc"
