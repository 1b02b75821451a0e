// Corpus tests: every bundled positive kernel parses, type-checks and verifies with no blocking
// finding (performance reports and hints are allowed), every negative kernel (corpus/negative/)
// is refused, and all of them print canonically and round-trip structurally through the printer.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/IR/Printer.h"
#include "cake/Support/StringUtil.h"

#include <QtTest>

using namespace cake;

class TestCorpus : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void kernels_data() {
    QTest::addColumn<QString>("path");
    const QStringList paths = test::corpusKernels(test::CorpusKernels::All);
    QVERIFY(paths.size() >= 8);
    for (const QString& p : paths)
      QTest::newRow(qPrintable(QDir(QStringLiteral(CAKE_CORPUS_DIR)).relativeFilePath(p))) << p;
  }
  void kernels() {
    QFETCH(QString, path);
    std::string error;
    auto text = readFile(path.toStdString(), error);
    QVERIFY2(text, error.c_str());
    driver::CheckResult r = test::compiler().check(path.toStdString(), *text);
    const bool negative = path.contains(QStringLiteral("/negative/"));
    std::vector<Diagnostic> blocking;
    for (const Diagnostic& d : r.diagnostics)
      if (d.severity == Severity::Blocking)
        blocking.push_back(d);
    if (negative) {
      QVERIFY2(!r.accepted && !blocking.empty(), "a negative kernel must be refused");
    } else {
      QVERIFY2(r.accepted && blocking.empty(), qPrintable(test::messages(blocking)));
      QVERIFY(r.model.target);
      QVERIFY(!r.model.ops.empty());
    }
    // Canonical: the file is its own formatted form.
    std::string printed = ir::print(r.module);
    QCOMPARE(QString::fromStdString(printed), QString::fromStdString(*text));
    // Structural round trip.
    SourceManager sm;
    DiagnosticEngine d;
    ir::Module again = parseModule(sm, sm.addBuffer("again", printed), d);
    QVERIFY(d.diagnostics().empty());
    QVERIFY(ir::equal(*r.module.kernel, *again.kernel));
  }

  void compilerLoadsCleanly() {
    const driver::Compiler& c = test::compiler();
    QVERIFY2(c.ok(), qPrintable(test::messages(c.loadDiagnostics())));
    QVERIFY(c.loadDiagnostics().empty());
    QCOMPARE(c.revision().size(), std::size_t(12));
    QVERIFY(c.registry().all().size() >= 50);
    QCOMPARE(c.targets().names(), (std::vector<std::string>{"sm_100a", "sm_80", "sm_90a"}));
  }
};

QTEST_APPLESS_MAIN(TestCorpus)
#include "tst_corpus.moc"
