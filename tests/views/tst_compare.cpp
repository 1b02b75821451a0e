// Compare and baseline: the façade's compare job (superseded requests dropped, one result per
// newest request), graph diff marks on both sides, side-by-side rows, a pinned baseline's
// deltas following edits, hint edits applied to the checked text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ViewsTestUtil.h"

#include "cake/views/CompareData.h"
#include "cake/views/PerformanceData.h"

#include <QSignalSpy>
#include <QtTest>

using namespace cake;

namespace {

QString hopper() {
  return test::readFile(test::corpusPath("hopper_gemm/gemm_ws.cake"));
}

QString edited(QString text, const QString& from, const QString& to) {
  Q_ASSERT(text.count(from) == 1);
  return text.replace(from, to);
}

} // namespace

class TestCompare : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QVERIFY(test::compiler()->ok()); }
  void sideBySideRows_data();
  void sideBySideRows();
  void graphMarks();
  void compareJobSupersedes();
  void baselineFollowsEdits();
  void hintEditsApply();
};

void TestCompare::sideBySideRows_data() {
  QTest::addColumn<QString>("before");
  QTest::addColumn<QString>("after");
  QTest::addColumn<QString>("rows"); // per row: C common, R removed, A added, X changed
  QTest::newRow("same") << "a\nb\n"
                        << "a\nb\n"
                        << "CC";
  QTest::newRow("replaced") << "a\nb\nc\n"
                            << "a\nx\nc\n"
                            << "CXC";
  QTest::newRow("more-added") << "a\nb\nc\n"
                              << "a\nx\ny\nc\n"
                              << "CXAC";
  QTest::newRow("removed") << "a\nb\nc\n"
                           << "a\nc\n"
                           << "CRC";
  QTest::newRow("appended") << "a\n"
                            << "a\nz\n"
                            << "CA";
}

void TestCompare::sideBySideRows() {
  QFETCH(QString, before);
  QFETCH(QString, after);
  QFETCH(QString, rows);
  QVector<views::DiffRow> r =
      views::sideBySide(diff::diffLines(before.toStdString(), after.toStdString()));
  QString kinds;
  for (const views::DiffRow& row : r) {
    kinds += "CRAX"[int(row.kind)];
    // A row shows a line on a side exactly when it has its number there.
    QCOMPARE(row.left != 0, row.kind != views::DiffRow::Kind::Added);
    QCOMPARE(row.right != 0, row.kind != views::DiffRow::Kind::Removed);
  }
  QCOMPARE(kinds, rows);
}

void TestCompare::graphMarks() {
  // The epilogue wait loses read=true (changed on both sides), a proxy fence is added at the
  // end of the consumer (added on the right, with the program-order edges it brings).
  QString a = hopper();
  QString b =
      edited(a, "      bulk.wait_group pending=0 read=true\n", "      bulk.wait_group pending=0\n");
  b = edited(b, "    bulk.wait_group pending=0\n  }\n}",
             "    bulk.wait_group pending=0\n    fence.proxy.async\n  }\n}");
  views::CompareSnapshotPtr s =
      views::buildCompareSnapshot(*test::compiler(), "a.cake", a, "b.cake", b, 7);
  QVERIFY(s && s->diff && s->before && s->after);
  QCOMPARE(s->jobId, quint64(7));
  const sema::KernelModel& ma = s->before->result.model;
  const sema::KernelModel& mb = s->after->result.model;
  QHash<QString, int> left, right; // "primitive:mark" counts
  for (auto it = s->marksBefore.ops.cbegin(); it != s->marksBefore.ops.cend(); ++it)
    ++left[QString::fromStdString(ma.ops[it.key()].primitive->name) + ':' +
           QString::number(int(it.value()))];
  for (auto it = s->marksAfter.ops.cbegin(); it != s->marksAfter.ops.cend(); ++it)
    ++right[QString::fromStdString(mb.ops[it.key()].primitive->name) + ':' +
            QString::number(int(it.value()))];
  const int changed = int(views::DiffMark::Changed), added = int(views::DiffMark::Added);
  QCOMPARE(left, (QHash<QString, int>{{QStringLiteral("bulk.wait_group:%1").arg(changed), 1}}));
  QCOMPARE(right, (QHash<QString, int>{{QStringLiteral("bulk.wait_group:%1").arg(changed), 1},
                                       {QStringLiteral("fence.proxy.async:%1").arg(added), 1}}));
  // The added fence sits between the last wait and the end: the wait's program-order edge to
  // it is new on the right; the left has an edge the right lacks only if the wait had a
  // successor there (it has none: it was the last operation).
  QVERIFY2(!s->marksAfter.edges.isEmpty(), "no edge marked as added");
  for (const QString& key : s->marksAfter.edges)
    QVERIFY(!key.isEmpty());
  QCOMPARE(s->marksBefore.edgeMark, views::DiffMark::Removed);
  QCOMPARE(s->marksAfter.edgeMark, views::DiffMark::Added);
  // The same kernel: nothing marked.
  views::CompareSnapshotPtr same =
      views::buildCompareSnapshot(*test::compiler(), "a.cake", a, "a2.cake", "// moved\n" + a, 8);
  QVERIFY(same->marksBefore.ops.isEmpty() && same->marksAfter.ops.isEmpty());
  QVERIFY(same->marksBefore.edges.isEmpty() && same->marksAfter.edges.isEmpty());
  QVERIFY(!same->diff->different());
}

void TestCompare::compareJobSupersedes() {
  views::CompileSession session;
  session.setCompiler(test::compiler());
  QSignalSpy done(&session, &views::CompileSession::compareFinished);
  QSignalSpy states(&session, &views::CompileSession::jobStateChanged);
  QString a = hopper();
  QString b = edited(a, "regs=40", "regs=56");
  quint64 first = session.requestCompare("a.cake", a, "b.cake", a);
  quint64 second = session.requestCompare("a.cake", a, "b.cake", b);
  QVERIFY(second > first);
  QCOMPARE(session.latestCompareJob(), second);
  QTRY_COMPARE_WITH_TIMEOUT(session.activeJobs(), 0, 60000);
  QCOMPARE(done.count(), 1);
  auto snap = done.at(0).at(0).value<views::CompareSnapshotPtr>();
  QCOMPARE(snap->jobId, second);
  QVERIFY(snap->diff->different());
  QCOMPARE(snap->diff->decls.size(), std::size_t(1));
  QCOMPARE(snap->diff->decls[0].key, std::string("role producer"));
  bool superseded = false;
  for (const QList<QVariant>& s : states)
    superseded |= s.at(0).toULongLong() == first &&
                  s.at(1).value<views::JobState>() == views::JobState::Superseded;
  QVERIFY2(superseded, "the first compare job was not reported superseded");
}

void TestCompare::baselineFollowsEdits() {
  views::CompileSession session;
  session.setCompiler(test::compiler());
  QSignalSpy ready(&session, &views::CompileSession::baselineReady);
  QSignalSpy deltas(&session, &views::CompileSession::baselineDeltaFinished);
  QString a = hopper();
  session.requestCheck("k.cake", a);
  session.pinBaseline("base.cake", a);
  QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
  // The check already delivered is compared as soon as the baseline is ready: no change.
  QTRY_VERIFY_WITH_TIMEOUT(deltas.count() >= 1, 30000);
  auto first = deltas.last().at(0).value<views::BaselineDeltaPtr>();
  QVERIFY(first && !first->diff->different());
  // An edit: a 3-stage ring (one mbarrier word less for each of full and empty: 16 bytes) and
  // the epilogue's proxy fence removed (one finding): the deltas follow.
  QString b = edited(a, "pipeline ring stages=4", "pipeline ring stages=3");
  b = edited(b, "offset=0 stages=4", "offset=0 stages=3");
  b = edited(b, "offset=65536 stages=4", "offset=65536 stages=3");
  b = edited(b, "      fence.proxy.async\n", "");
  quint64 job = session.requestCheck("k.cake", b);
  QTRY_VERIFY_WITH_TIMEOUT(
      !deltas.isEmpty() && deltas.last().at(0).value<views::BaselineDeltaPtr>()->checkJob == job,
      30000);
  auto d = deltas.last().at(0).value<views::BaselineDeltaPtr>();
  QCOMPARE(qint64(*d->diff->smemBytes.after - *d->diff->smemBytes.before), qint64(-16));
  QCOMPARE(d->findingsAppeared, 1);
  QCOMPARE(d->findingsDisappeared, 0);
  QVERIFY2(d->summary().contains(QStringLiteral("smem -16 B")), qPrintable(d->summary()));
  QVERIFY2(d->summary().contains(QStringLiteral("findings +1 −0")), qPrintable(d->summary()));
  // Unpinned: no further deltas.
  session.clearBaseline();
  QCOMPARE(ready.last().at(0).value<views::BaselinePtr>(), views::BaselinePtr());
  int before = int(deltas.count());
  session.requestCheck("k.cake", a);
  QTRY_COMPARE_WITH_TIMEOUT(session.activeJobs(), 0, 30000);
  QCOMPARE(int(deltas.count()), before);
}

void TestCompare::hintEditsApply() {
  QString text = QStringLiteral("ab\ncd\nef\n");
  auto edit = [](std::uint32_t b, std::uint32_t e, std::string r) {
    return cost::TextEdit{SourceRange{1, b, e}, std::move(r)};
  };
  QCOMPARE(views::withEdits(text, {edit(0, 2, "XY"), edit(6, 8, "Z")}),
           QStringLiteral("XY\ncd\nZ\n"));
  // Order of the edits does not matter; out of range or overlapping: refused.
  QCOMPARE(views::withEdits(text, {edit(6, 8, "Z"), edit(0, 2, "XY")}),
           QStringLiteral("XY\ncd\nZ\n"));
  // The end of the text is the last place an edit may reach.
  QCOMPARE(views::withEdits(text, {edit(9, 9, "Z")}), QStringLiteral("ab\ncd\nef\nZ"));
  QCOMPARE(views::withEdits(text, {edit(9, 10, "Z")}), QString());
  QCOMPARE(views::withEdits(text, {edit(0, 4, "a"), edit(3, 5, "b")}), QString());
  // The real hints of the cost model that carry edits (the Flash-KMeans assign kernel has
  // one), applied to their kernel: the child checks and differs.
  QString hop = test::readFile(test::corpusPath("flash_kmeans/assign.cake"));
  int tried = 0;
  auto check =
      std::make_shared<driver::CheckResult>(test::compiler()->check("h.cake", hop.toStdString()));
  cost::Estimate e = cost::estimate(*test::compiler(), *check);
  for (const cost::Hint& h : e.hints) {
    if (h.edits.empty())
      continue;
    QString child = views::withEdits(hop, h.edits);
    QVERIFY(!child.isEmpty() && child != hop);
    driver::CheckResult c = test::compiler()->check("c.cake", child.toStdString());
    QVERIFY2(c.accepted, h.message.c_str());
    ++tried;
  }
  QVERIFY2(tried > 0, "no hint with edits on the Flash-KMeans assign kernel");
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
