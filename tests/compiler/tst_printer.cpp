// Printer tests: canonical form, idempotence and structural round trip on tricky inputs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/IR/Printer.h"

#include <QtTest>

using namespace cake;

namespace {
std::string printText(const std::string& text, std::vector<Diagnostic>* diags = nullptr) {
  SourceManager sm;
  FileId f = sm.addBuffer("t.cake", text);
  DiagnosticEngine d;
  ir::Module m = parseModule(sm, f, d);
  if (diags)
    *diags = d.take();
  return ir::print(m);
}
} // namespace

class TestPrinter : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void canonicalForm_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("spacing and parens")
        << "kernel   k  target = sm_90a{\nconst A=(1+2)*3\n  const B = 1+(2*3)\n"
           "const C = (8-2)-1\nconst D = 8-(2-1)\n  const E = -(-4)\n}\n"
        << "kernel k target=sm_90a {\n  const A = (1 + 2) * 3\n  const B = 1 + 2 * 3\n"
           "  const C = 8 - 2 - 1\n  const D = 8 - (2 - 1)\n  const E = - -4\n}\n";
    QTest::newRow("unary chains print without brackets (fuzz_parse)")
        << "kernel k target=sm_90a {\n  const A = ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~8\n"
           "  const B = -(-(-x))\n  const C = ~(-(~(-2)))\n}\n"
        << "kernel k target=sm_90a {\n  const A = ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~8\n"
           "  const B = - - -x\n  const C = ~-~-2\n}\n";
    QTest::newRow("declarations move above role blocks")
        << "kernel k target=sm_80 {\n  on r {\n  }\n  role r warps=0..1\n}\n"
        << "kernel k target=sm_80 {\n  role r warps=0..1\n  on r {\n  }\n}\n";
    QTest::newRow("operands, slices, floats, tags")
        << "kernel k target=sm_90a {\non a,b {\nfor i in 0..4 pipeline=p unroll=2{\n"
           "x.y a[i,j+:4, :],b value=1.0 f=0.5e1 s=128B l=[1,2] str=\"q\\\"\"\n}\n}\n}\n"
        << "kernel k target=sm_90a {\n  on a, b {\n    for i in 0..4 pipeline=p unroll=2 {\n"
           "      x.y a[i, j +: 4, :], b value=1.0 f=5.0 s=128B l=[1, 2] str=\"q\\\"\"\n"
           "    }\n  }\n}\n";
    QTest::newRow("comments and blank lines")
        << "// top\n\n\n\nkernel k target=sm_80 { // k\n\n\n  const A = 1 // a\n\n\n"
           "  // lead\n  const B = 2\n  // close\n} // end\n\n// tail\n"
        << "// top\n\nkernel k target=sm_80 {  // k\n  const A = 1  // a\n\n"
           "  // lead\n  const B = 2\n  // close\n}  // end\n\n// tail\n";
    QTest::newRow("min, max and cdiv are calls, never bracketed")
        << "kernel k target=sm_90a {\nconst A=min( 1+2 ,max(3,4))*cdiv(7,(2))\nconst B=-min(1,2)\n}\n"
        << "kernel k target=sm_90a {\n  const A = min(1 + 2, max(3, 4)) * cdiv(7, 2)\n"
           "  const B = -min(1, 2)\n}\n";
    QTest::newRow("member and bit operators")
        << "kernel k target=sm_90a {\non r {\nw.x b[p.slot] parity=p.phase^1 m=(a|b)&c s=1<<4\n}\n}\n"
        << "kernel k target=sm_90a {\n  on r {\n    w.x b[p.slot] parity=p.phase ^ 1 m=(a | b) & c s=1 << 4\n  }\n}\n";
  }
  void canonicalForm() {
    QFETCH(QString, input);
    QFETCH(QString, expected);
    std::vector<Diagnostic> diags;
    std::string out = printText(input.toStdString(), &diags);
    QVERIFY2(diags.empty(), qPrintable(test::messages(diags)));
    QCOMPARE(QString::fromStdString(out), expected);
    // Idempotent and a structural round trip.
    QCOMPARE(QString::fromStdString(printText(out)), expected);
  }

  void roundTripIsStructural() {
    std::string text = "kernel k target=sm_90a {\n  const A = -3\n  const F = 2 - -3\n"
                       "  const G = 2 * ---4 + 1\n  const H = -5 + 1\n  const I = -(-(6)) - -7 * 2\n"
                       "  smem s : bf16[2, 64] offset=0 stages=2\n  on all {\n"
                       "    op.x s[0, 1 +: 4, :] v=-1.5 w=[-1, 2] r=-2..-1\n  }\n}\n";
    SourceManager sm;
    FileId f1 = sm.addBuffer("a", text);
    DiagnosticEngine d;
    ir::Module m1 = parseModule(sm, f1, d);
    QVERIFY2(d.diagnostics().empty(), qPrintable(test::messages(d.diagnostics())));
    std::string printed = ir::print(m1);
    FileId f2 = sm.addBuffer("b", printed);
    ir::Module m2 = parseModule(sm, f2, d);
    QVERIFY(d.diagnostics().empty());
    QVERIFY(ir::equal(*m1.kernel, *m2.kernel));
    QCOMPARE(QString::fromStdString(ir::print(m2)), QString::fromStdString(printed));
  }

  void equalityDetectsChanges() {
    auto parseK = [](const std::string& t) {
      SourceManager sm;
      DiagnosticEngine d;
      return parseModule(sm, sm.addBuffer("x", t), d);
    };
    ir::Module a = parseK("kernel k target=sm_80 {\n  const A = 1\n}\n");
    ir::Module b = parseK("kernel k target=sm_80 {\n  const A = 2\n}\n");
    ir::Module c = parseK("kernel k target=sm_80 {\n  const A = 1  // note\n}\n");
    QVERIFY(ir::equal(*a.kernel, *a.kernel));
    QVERIFY(!ir::equal(*a.kernel, *b.kernel));
    QVERIFY(!ir::equal(*a.kernel, *c.kernel));
  }
};

QTEST_APPLESS_MAIN(TestPrinter)
#include "tst_printer.moc"
