// Output handler tests: caret text, JSON findings, and the `expect` annotation checker.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Driver/Output.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace cake;

namespace {
const char* kKernel = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                      "  reg x : f32[4] scope=thread\n  on r {\n    ew.fil x value=0.0\n  }\n}\n";
}

class TestOutput : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void caretText() {
    auto r = test::compiler().check("k.cake", kKernel);
    QCOMPARE(r.diagnostics.size(), std::size_t(1));
    std::string text = driver::renderText(r.diagnostics[0], *r.sources);
    QCOMPARE(QString::fromStdString(text),
             QStringLiteral("k.cake:6:5: error[sem-unknown-primitive]: 'ew.fil' is not a "
                            "primitive of the registry\n"
                            "   6 |     ew.fil x value=0.0\n"
                            "     |     ^~~~~~\n"
                            "      = fix: did you mean 'ew.fill'?\n"));
  }

  void notesInOtherFilesCarryTheirPath() {
    auto r = test::compiler().check(
        "k.cake", "kernel k target=sm_80 {\n  grid tiles=[1]\n  role r warps=0..1\n"
                  "  on r {\n    mbarrier.try_wait x parity=0\n  }\n}\n");
    // try_wait does not exist on sm_80; the note points into the registry file.
    QVERIFY(!r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics[0];
    QCOMPARE(QString::fromStdString(d.code), QStringLiteral("hw-primitive-not-on-target"));
    json::Writer w;
    driver::writeJson(w, d, *r.sources);
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(w.str())).object();
    QCOMPARE(o["family"].toString(), QStringLiteral("hardware-conformance"));
    QCOMPARE(o["severity"].toString(), QStringLiteral("blocking"));
    QCOMPARE(o["range"].toObject()["line"].toInt(), 5);
    QCOMPARE(o["range"].toObject()["column"].toInt(), 5);
    QCOMPARE(o["range"].toObject()["end_column"].toInt(), 22);
    QJsonObject note = o["notes"].toArray()[0].toObject();
    QVERIFY(note["range"].toObject()["path"].toString().endsWith("mbarrier.try_wait.json"));
    QVERIFY(o["fix"].isNull());
  }

  void expectations_data() {
    QTest::addColumn<QString>("annotation");
    QTest::addColumn<int>("problems");
    QTest::newRow("same line") << "    ew.fil x value=0.0  // expect: sem-unknown-primitive" << 0;
    QTest::newRow("message part") << "    ew.fil x value=0.0  // expect: sem-unknown-primitive {{'ew.fil'}}" << 0;
    QTest::newRow("wrong message") << "    ew.fil x value=0.0  // expect: sem-unknown-primitive {{nope}}" << 2;
    QTest::newRow("wrong code") << "    ew.fil x value=0.0  // expect: sem-operand-count" << 2;
    QTest::newRow("missing annotation") << "    ew.fil x value=0.0" << 1;
    QTest::newRow("severity") << "    ew.fil x value=0.0  // expected-blocking: sem-unknown-primitive" << 0;
    QTest::newRow("wrong severity") << "    ew.fil x value=0.0  // expected-hint: sem-unknown-primitive" << 2;
  }
  void expectations() {
    QFETCH(QString, annotation);
    QFETCH(int, problems);
    QString text = QString::fromUtf8(kKernel);
    text.replace("    ew.fil x value=0.0", annotation);
    auto r = test::compiler().check("k.cake", text.toStdString());
    std::vector<std::string> p;
    auto ex = driver::parseExpectations(text.toStdString(), p);
    QVERIFY(p.empty());
    auto mismatches = driver::verifyExpectations(ex, r.diagnostics, *r.sources, r.file);
    QCOMPARE(int(mismatches.size()), problems);
  }

  void relativeAndAbsoluteLines() {
    std::vector<std::string> p;
    auto ex = driver::parseExpectations("a\n// expect@+2: x-y\n// expect@-1: x-z\n// expect@L9: x-w\n"
                                        "// expect@?: bad\n// expect x\n// expected-warn: x-y\n",
                                        p);
    QCOMPARE(ex.size(), std::size_t(3));
    QCOMPARE(int(ex[0].line), 4);
    QCOMPARE(int(ex[1].line), 2);
    QCOMPARE(int(ex[2].line), 9);
    QCOMPARE(p.size(), std::size_t(3));
  }
};

QTEST_APPLESS_MAIN(TestOutput)
#include "tst_output.moc"
