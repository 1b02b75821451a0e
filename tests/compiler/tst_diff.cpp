// The semantic kernel diff (cake::diff): items aligned by identity, not by line; fields of a
// changed operation; findings keyed by code and item; resource and prediction deltas; dtl line
// diffs. Rows edit the Hopper GEMM of the corpus.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Diff/Diff.h"
#include "cake/Support/StringUtil.h"

#include <QtTest>

using namespace cake;

namespace {

std::string corpusText(const char* rel) {
  std::string error;
  auto text = readFile(std::string(CAKE_SOURCE_DIR) + "/corpus/" + rel, error, 1u << 20);
  return text ? *text : std::string();
}

/// Applies "old=>new" replacements (each must occur exactly once).
bool applyEdits(std::string& text, const QStringList& edits, QString& why) {
  for (const QString& e : edits) {
    QStringList parts = e.split(QStringLiteral("=>"));
    std::string from =
        parts.value(0).replace(QStringLiteral("\\n"), QStringLiteral("\n")).toStdString();
    std::string to =
        parts.value(1).replace(QStringLiteral("\\n"), QStringLiteral("\n")).toStdString();
    std::size_t at = text.find(from);
    if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
      why = QStringLiteral("edit '%1' does not match exactly once").arg(e);
      return false;
    }
    text.replace(at, from.size(), to);
  }
  return true;
}

QStringList itemStrings(const std::vector<diff::ItemChange>& items) {
  QStringList out;
  for (const diff::ItemChange& c : items) {
    QString s =
        QStringLiteral("%1 %2").arg(diff::changeKindName(c.kind), QString::fromStdString(c.key));
    for (const diff::FieldChange& f : c.fields)
      s += QStringLiteral(" {%1: %2 -> %3}")
               .arg(QString::fromStdString(f.field), QString::fromStdString(f.before),
                    QString::fromStdString(f.after));
    out << s;
  }
  return out;
}

QStringList findingStrings(const std::vector<diff::FindingChange>& findings) {
  QStringList out;
  for (const diff::FindingChange& f : findings)
    out << QStringLiteral("%1 %2@%3")
               .arg(f.appeared ? "appeared" : "disappeared", QString::fromStdString(f.code),
                    QString::fromStdString(f.anchor));
  return out;
}

} // namespace

class TestDiff : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void semanticDiff_data();
  void semanticDiff();
  void findingsByIdentity_data();
  void findingsByIdentity();
  void lineDiff_data();
  void lineDiff();
  void ptxDiff();
  void textReport();
};

void TestDiff::semanticDiff_data() {
  QTest::addColumn<QStringList>("edits");
  QTest::addColumn<QStringList>("decls");
  QTest::addColumn<QStringList>("ops");
  QTest::addColumn<qint64>("smemDelta");
  QTest::addColumn<bool>("different");

  // Lines shift (comments, a blank line) and two constants swap places: nothing changed.
  QTest::newRow("moved-unchanged")
      << QStringList{"kernel gemm_bf16_ws=>// a\n// b\n\nkernel gemm_bf16_ws",
                     "  const BN = 128\n  const BK = 64\n=>  const BK = 64\n  const BN = 128\n",
                     "    wgmma.commit\n=>    // commit the group\n    wgmma.commit\n"}
      << QStringList{} << QStringList{} << qint64(0) << false;
  QTest::newRow("attribute-changed")
      << QStringList{"wgmma.wait pending=0=>wgmma.wait pending=1"} << QStringList{}
      << QStringList{"changed consumer/wgmma.wait#0 {attr pending: 0 -> 1}"} << qint64(0) << true;
  QTest::newRow("subscript-changed")
      << QStringList{"tma.load b_s[ring.slot], tB[t.y * BN, k * BK]=>tma.load b_s[ring.slot], "
                     "tB[t.y * BN, k * BK + 0]"}
      << QStringList{}
      << QStringList{"changed producer/tma.load#1 {operand 2: tB[t.y * BN, k * BK] -> tB[t.y * "
                     "BN, k * BK + 0]}"}
      << qint64(0) << true;
  // An operation added in one role at another loop depth: one addition, the others unchanged.
  QTest::newRow("op-added-in-role")
      << QStringList{"    bulk.wait_group pending=0\n  }\n}=>    fence.proxy.async\n    "
                     "bulk.wait_group pending=0\n  }\n}"}
      << QStringList{} << QStringList{"added consumer/fence.proxy.async#1"} << qint64(0) << true;
  QTest::newRow("op-removed")
      << QStringList{"        mbarrier.arrive_expect_tx full[ring.slot] bytes=32768\n=>"}
      << QStringList{} << QStringList{"removed producer/mbarrier.arrive_expect_tx#0"} << qint64(0)
      << true;
  // The first of two loads removed: the second keeps its identity by its operands (position
  // alone would pair it with the removed one and report its operands as changed).
  QTest::newRow("same-primitive-removed")
      << QStringList{"        tma.load a_s[ring.slot], tA[t.x * BM, k * BK], full[ring.slot]\n=>"}
      << QStringList{} << QStringList{"removed producer/tma.load#0"} << qint64(0) << true;
  // One epilogue stage fewer: 128 x 64 bf16 = 16384 bytes less shared memory.
  QTest::newRow("smem-stages") << QStringList{"offset=131072 stages=2=>offset=131072 stages=1"}
                               << QStringList{"changed smem c_s {attr stages: 2 -> 1}"}
                               << QStringList{} << qint64(-16384) << true;
  QTest::newRow("decl-added")
      << QStringList{"  reg acc_bf=>  reg spare : f32[64, 8] scope=warpgroup\n  reg acc_bf"}
      << QStringList{"added reg spare"} << QStringList{} << qint64(0) << true;
  QTest::newRow("role-registers") << QStringList{"regs=40=>regs=56"}
                                  << QStringList{"changed role producer {attr regs: 40 -> 56}"}
                                  << QStringList{} << qint64(0) << true;
}

void TestDiff::semanticDiff() {
  QFETCH(QStringList, edits);
  QFETCH(QStringList, decls);
  QFETCH(QStringList, ops);
  QFETCH(qint64, smemDelta);
  QFETCH(bool, different);
  std::string before = corpusText("hopper_gemm/gemm_ws.cake");
  QVERIFY(!before.empty());
  std::string after = before;
  QString why;
  QVERIFY2(applyEdits(after, edits, why), qPrintable(why));
  diff::AssessOptions o;
  o.ptx = false;
  diff::Assessment a = diff::assess(test::compiler(), "a.cake", before, o);
  diff::Assessment b = diff::assess(test::compiler(), "b.cake", after, o);
  QVERIFY2(a.check.accepted, qPrintable(test::messages(a.check.diagnostics)));
  diff::KernelDiff d = diff::compare(a, b);
  QCOMPARE(itemStrings(d.decls), decls);
  QCOMPARE(itemStrings(d.ops), ops);
  QVERIFY(d.smemBytes.before && d.smemBytes.after);
  QCOMPARE(qint64(*d.smemBytes.after - *d.smemBytes.before), smemDelta);
  QCOMPARE(d.different(), different);
  // Symmetry: the reverse diff has the same items with added and removed swapped.
  diff::KernelDiff r = diff::compare(b, a);
  QCOMPARE(r.decls.size() + r.ops.size(), d.decls.size() + d.ops.size());
  QCOMPARE(r.different(), different);
}

void TestDiff::findingsByIdentity_data() {
  QTest::addColumn<QString>("kernel");
  QTest::addColumn<QStringList>("edits");
  QTest::addColumn<QStringList>("findings");

  // The epilogue's proxy fence removed: the TMA store reads what stmatrix wrote unfenced.
  QTest::newRow("appeared") << "hopper_gemm/gemm_ws.cake"
                            << QStringList{"      fence.proxy.async\n=>"}
                            << QStringList{"appeared ps-missing-proxy-fence@consumer/tma.store#0"};
  // A refused kernel with lines shifted: its findings are the same findings.
  QTest::newRow("shifted-same") << "negative/deadlock-extra-wait.cake"
                                << QStringList{"kernel =>// one\n// two\n// three\nkernel "}
                                << QStringList{};
}

void TestDiff::findingsByIdentity() {
  QFETCH(QString, kernel);
  QFETCH(QStringList, edits);
  QFETCH(QStringList, findings);
  std::string before = corpusText(qPrintable(kernel));
  QVERIFY(!before.empty());
  std::string after = before;
  QString why;
  QVERIFY2(applyEdits(after, edits, why), qPrintable(why));
  diff::AssessOptions o;
  o.ptx = false;
  diff::Assessment a = diff::assess(test::compiler(), "a.cake", before, o);
  diff::Assessment b = diff::assess(test::compiler(), "b.cake", after, o);
  QVERIFY(!a.check.diagnostics.empty() || !b.check.diagnostics.empty());
  QCOMPARE(findingStrings(diff::compare(a, b).findings), findings);
  // Backwards every appeared finding disappears.
  QStringList reverse;
  for (QString f : findings)
    reverse << f.replace(QStringLiteral("appeared "), QStringLiteral("disappeared "));
  QCOMPARE(findingStrings(diff::compare(b, a).findings), reverse);
}

void TestDiff::lineDiff_data() {
  QTest::addColumn<QString>("before");
  QTest::addColumn<QString>("after");
  QTest::addColumn<int>("added");
  QTest::addColumn<int>("removed");
  QTest::addColumn<int>("hunks");
  QTest::newRow("same") << "a\nb\nc\n"
                        << "a\nb\nc\n"
                        << 0 << 0 << 0;
  QTest::newRow("one-changed") << "a\nb\nc\n"
                               << "a\nx\nc\n"
                               << 1 << 1 << 1;
  QTest::newRow("two-hunks") << "a\nb\nc\nd\ne\n"
                             << "z\na\nb\nc\ne\n"
                             << 1 << 1 << 2;
  QTest::newRow("from-empty") << ""
                              << "a\nb\n"
                              << 2 << 0 << 1;
  QTest::newRow("crlf-same") << "a\r\nb\r\n"
                             << "a\nb\n"
                             << 0 << 0 << 0;
}

void TestDiff::lineDiff() {
  QFETCH(QString, before);
  QFETCH(QString, after);
  QFETCH(int, added);
  QFETCH(int, removed);
  QFETCH(int, hunks);
  diff::LineDiff d = diff::diffLines(before.toStdString(), after.toStdString());
  QCOMPARE(d.added, added);
  QCOMPARE(d.removed, removed);
  QCOMPARE(d.hunks, hunks);
  // The edit script rebuilds both texts.
  QStringList a, b;
  for (const diff::LineDiff::Line& l : d.lines) {
    if (l.op != diff::LineDiff::Op::Added)
      a << QString::fromStdString(l.text);
    if (l.op != diff::LineDiff::Op::Removed)
      b << QString::fromStdString(l.text);
  }
  QCOMPARE(a, before.remove('\r').split('\n', Qt::SkipEmptyParts));
  QCOMPARE(b, after.split('\n', Qt::SkipEmptyParts));
}

void TestDiff::ptxDiff() {
  // A pipeline one stage shallower changes the PTX; the same kernel with lines shifted does
  // not (no debug lines in the compared PTX).
  std::string before = corpusText("hopper_gemm/gemm_ws.cake");
  std::string shifted = "// shifted\n\n" + before;
  std::string deeper = before;
  QString why;
  QVERIFY2(applyEdits(deeper,
                      {"pipeline ring stages=4=>pipeline ring stages=3",
                       "offset=0 stages=4=>offset=0 stages=3",
                       "offset=65536 stages=4=>offset=65536 stages=3"},
                      why),
           qPrintable(why));
  diff::Assessment a = diff::assess(test::compiler(), "a.cake", before);
  diff::Assessment s = diff::assess(test::compiler(), "s.cake", shifted);
  diff::Assessment c = diff::assess(test::compiler(), "c.cake", deeper);
  QVERIFY2(!a.ptx.empty(), a.ptxUnavailable.c_str());
  diff::KernelDiff same = diff::compare(a, s);
  QVERIFY(same.ptx);
  QCOMPARE(same.ptx->added + same.ptx->removed, 0);
  QCOMPARE(same.ir.added, 2);
  QVERIFY(!same.different());
  diff::KernelDiff d = diff::compare(a, c);
  QVERIFY(d.ptx);
  QVERIFY(d.ptx->added > 0 && d.ptx->removed > 0);
  QCOMPARE(d.stages.at("ring").before.value(), 4.0);
  QCOMPARE(d.stages.at("ring").after.value(), 3.0);
  // Both costed (the GEMM is memory-bound: one stage less does not change its prediction).
  QVERIFY(d.predictedUs.before && d.predictedUs.after);
}

void TestDiff::textReport() {
  std::string before = corpusText("hopper_gemm/gemm_ws.cake");
  std::string after = before;
  QString why;
  QVERIFY2(applyEdits(after, {"wgmma.wait pending=0=>wgmma.wait pending=1"}, why), qPrintable(why));
  diff::AssessOptions o;
  o.ptx = false;
  diff::KernelDiff d = diff::compare(diff::assess(test::compiler(), "a.cake", before, o),
                                     diff::assess(test::compiler(), "b.cake", after, o));
  QString text = QString::fromStdString(diff::renderText(d));
  QVERIFY2(text.contains("~ consumer/wgmma.wait#0 (line 74 -> 74): wgmma.wait pending=1\n"
                         "      attr pending: 0 -> 1\n"),
           qPrintable(text));
  QVERIFY2(text.endsWith("result: different\n"), qPrintable(text));
}

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
