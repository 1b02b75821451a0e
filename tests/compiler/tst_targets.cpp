// Target data tests: the shipped targets load with every fact cited; malformed target files
// are refused with located findings; kernels match targets exactly.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Support/StringUtil.h"
#include "cake/Target/Target.h"

#include <QtTest>

using namespace cake;

namespace {
std::string shipped(const std::string& name) {
  std::string error;
  return *readFile(std::string(CAKE_SOURCE_DIR) + "/compiler/targets/" + name + ".json", error);
}
} // namespace

class TestTargets : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void shippedTargets() {
    const target::TargetSet& ts = test::compiler().targets();
    QCOMPARE(ts.all().size(), std::size_t(3));
    for (const auto& t : ts.all()) {
      for (std::string_view k : target::limitKeys())
        QVERIFY2(t->limits.count(k), std::string(k).c_str());
      for (const auto& [k, f] : t->limits)
        QVERIFY2(!f.source.empty(), k.c_str());
      for (const auto& [k, f] : t->machine)
        QVERIFY2(!f.source.empty(), k.c_str());
      for (const auto& [k, f] : t->features)
        QVERIFY2(!f.source.empty(), k.c_str());
      QVERIFY(!t->calibrated());
    }
    const target::Target* h = ts.find("sm_90a");
    QCOMPARE(h->limit("smem_per_cta_bytes"), std::int64_t(232448));
    QCOMPARE(h->machineValue("sm_count"), 132.0);
    QVERIFY(h->hasFeature("wgmma") && !h->hasFeature("tcgen05"));
    const target::Target* b = ts.find("sm_100a");
    QCOMPARE(b->limit("tmem_columns"), std::int64_t(512));
    QVERIFY(!b->hasFeature("wgmma") && b->hasFeature("tcgen05") && b->hasSpace(ir::Space::Tmem));
    const target::Target* a = ts.find("sm_80");
    QVERIFY(!a->hasFeature("tma") && a->hasFeature("cp.async"));
    QCOMPARE(a->machineValue("sm_count"), 108.0);
    QVERIFY(!ts.find("sm_90"));  // exact match only
  }

  void malformed_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("code");
    QTest::newRow("missing limit") << "\"threads_per_cta\"" << "\"threads_per_block\""
                                   << "def-missing-field";
    QTest::newRow("fact without source") << "\"value\": 1024,\n      \"source\""
                                         << "\"value\": 1024,\n      \"origin\""
                                         << "def-missing-field";
    QTest::newRow("fact of wrong type") << "\"value\": 1024," << "\"value\": \"1024\","
                                        << "def-invalid-value";
    QTest::newRow("unknown feature") << "\"wgmma\"" << "\"wgmmma\"" << "def-unknown-field";
    QTest::newRow("unknown space") << "\"smem\",\n" << "\"shared\",\n" << "def-invalid-value";
    QTest::newRow("bad name") << "\"name\": \"sm_90a\"" << "\"name\": \"hopper\""
                              << "def-invalid-value";
    QTest::newRow("calibration type") << "\"calibration\": null" << "\"calibration\": 3"
                                      << "def-invalid-value";
  }
  void malformed() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, code);
    QString text = QString::fromStdString(shipped("sm_90a"));
    QVERIFY2(text.contains(from), qPrintable(from));
    text.replace(text.indexOf(from), from.size(), to);
    SourceManager sm;
    FileId f = sm.addBuffer("sm_90a.json", text.toStdString());
    DiagnosticEngine d;
    auto t = target::TargetSet::parse("sm_90a.json", f, sm, d);
    QVERIFY(!t);
    QStringList got = test::codes(d.diagnostics(), sm);
    bool found = false;
    for (const QString& g : got)
      found |= g.startsWith(code + "@");
    QVERIFY2(found, qPrintable(got.join(", ")));
    // Every finding points into the file (line > 0).
    for (const Diagnostic& diag : d.diagnostics())
      QVERIFY(sm.lineColumn(diag.range.file, diag.range.begin).line >= 1);
  }

  void unknownTargetInKernel() {
    auto r = test::compiler().check("k.cake", "kernel k target=sm_90 {\n  grid tiles=[1]\n"
                                              "  role r warps=0..1\n}\n");
    QCOMPARE(test::codes(r.diagnostics, *r.sources), QStringList{"hw-unknown-target@1:17"});
    QVERIFY(r.diagnostics[0].fix);
    QCOMPARE(QString::fromStdString(r.diagnostics[0].fix->replacement), QStringLiteral("sm_90a"));
  }
};

QTEST_APPLESS_MAIN(TestTargets)
#include "tst_targets.moc"
