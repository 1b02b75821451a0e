// Tests of the support library: source positions, JSON reading/writing, SHA-256, suggestions.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/IR/Kernel.h"
#include "cake/Support/CompactVector.h"
#include "cake/Support/DataFiles.h"
#include "cake/Support/Json.h"
#include "cake/Support/JsonSchema.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/SourceManager.h"
#include "cake/Support/StringUtil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

using namespace cake;

class TestSupport : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void lineColumn_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("offset");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("start") << "abc\ndef" << 0 << 1 << 1;
    QTest::newRow("second line") << "abc\ndef" << 5 << 2 << 2;
    QTest::newRow("crlf") << "ab\r\ncd" << 5 << 2 << 2;
    QTest::newRow("lone cr") << "ab\rcd" << 4 << 2 << 2;
    QTest::newRow("end clamps") << "ab" << 99 << 1 << 3;
    // "é" is two bytes but one column.
    QTest::newRow("utf8") << QString::fromUtf8("// é x") << 6 << 1 << 6;
  }
  void lineColumn() {
    QFETCH(QString, text);
    QFETCH(int, offset);
    QFETCH(int, line);
    QFETCH(int, column);
    SourceManager sm;
    FileId f = sm.addBuffer("t", text.toStdString());
    LineColumn lc = sm.lineColumn(f, static_cast<std::uint32_t>(offset));
    QCOMPARE(int(lc.line), line);
    QCOMPARE(int(lc.column), column);
  }

  void lineText() {
    SourceManager sm;
    FileId f = sm.addBuffer("t", "one\r\ntwo\nthree");
    QCOMPARE(QString::fromStdString(std::string(sm.lineText(f, 1))), QStringLiteral("one"));
    QCOMPARE(QString::fromStdString(std::string(sm.lineText(f, 3))), QStringLiteral("three"));
    QVERIFY(sm.lineText(f, 4).empty());
  }

  void baseManagerSharesBuffers() {
    SourceManager base;
    FileId a = base.addBuffer("a", "x");
    SourceManager job(&base);
    FileId b = job.addBuffer("b", "y");
    QCOMPARE(b, a + 1);
    QCOMPARE(QString::fromStdString(job.name(a)), QStringLiteral("a"));
    QCOMPARE(QString::fromStdString(job.name(b)), QStringLiteral("b"));
    QVERIFY(!job.contains(b + 1));
  }

  void jsonParsesWithRanges() {
    SourceManager sm;
    std::string text = "{\n  \"a\": [1, 2.5, true, null],\n  \"b\": {\"c\": \"\\u00e9\"}\n}";
    FileId f = sm.addBuffer("t.json", text);
    DiagnosticEngine d;
    auto v = json::parse(sm.text(f), f, d);
    QVERIFY(v);
    QVERIFY(d.diagnostics().empty());
    const json::Value* a = v->get("a");
    QVERIFY(a && a->isArray());
    QCOMPARE(a->elements.size(), std::size_t(4));
    QCOMPARE(*a->elements[0].integer, std::int64_t(1));
    QVERIFY(!a->elements[1].integer);
    QCOMPARE(a->elements[1].number, 2.5);
    LineColumn lc = sm.lineColumn(f, a->range.begin);
    QCOMPARE(int(lc.line), 2);
    QCOMPARE(int(lc.column), 8);
    QCOMPARE(QString::fromStdString(v->get("b")->get("c")->string), QString::fromUtf8("é"));
  }

  void jsonErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("trailing comma") << "{\"a\": 1,}" << 1 << 9 << "member name";
    QTest::newRow("missing colon") << "{\"a\" 1}" << 1 << 6 << "':'";
    QTest::newRow("unterminated string") << "{\"a\": \"x" << 1 << 7 << "unterminated";
    QTest::newRow("duplicate key") << "{\"a\": 1,\n \"a\": 2}" << 2 << 2 << "duplicate";
    QTest::newRow("garbage") << "\x01\x02" << 1 << 1 << "byte 0x01";
    QTest::newRow("truncated") << "[1, 2" << 1 << 6 << "end of file";
    QTest::newRow("after value") << "{} x" << 1 << 4 << "after the JSON value";
    QTest::newRow("bad escape") << "\"\\q\"" << 1 << 2 << "escape";
    QTest::newRow("huge exponent") << "1e999" << 1 << 1 << "out of range";
  }
  void jsonErrors() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, fragment);
    SourceManager sm;
    FileId f = sm.addBuffer("t.json", text.toStdString());
    DiagnosticEngine d;
    QVERIFY(!json::parse(sm.text(f), f, d));
    QCOMPARE(d.diagnostics().size(), std::size_t(1));
    const Diagnostic& diag = d.diagnostics()[0];
    QCOMPARE(QString::fromStdString(diag.code), QStringLiteral("def-json-syntax"));
    LineColumn lc = sm.lineColumn(f, diag.range.begin);
    QCOMPARE(int(lc.line), line);
    QCOMPARE(int(lc.column), column);
    QVERIFY2(QString::fromStdString(diag.message).contains(fragment), diag.message.c_str());
  }

  void jsonDepthIsBounded() {
    std::string deep(100000, '[');
    SourceManager sm;
    FileId f = sm.addBuffer("deep.json", deep);
    DiagnosticEngine d;
    QVERIFY(!json::parse(sm.text(f), f, d));
    QVERIFY(QString::fromStdString(d.diagnostics()[0].message).contains("nesting"));
  }

  void jsonWriter() {
    json::Writer w(false);
    w.beginObject()
        .key("s")
        .value("a\"b\\c\n\x01")
        .key("n")
        .value(std::int64_t(-3))
        .key("d")
        .value(0.5)
        .key("e")
        .beginArray()
        .endArray()
        .key("z")
        .null()
        .endObject();
    QCOMPARE(QString::fromStdString(w.str()),
             QStringLiteral("{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":-3,\"d\":0.5,"
                            "\"e\":[],\"z\":null}"));
    json::Writer p;
    p.beginObject().key("a").beginArray().value(1).value(2).endArray().endObject();
    QCOMPARE(QString::fromStdString(p.str()),
             QStringLiteral("{\n  \"a\": [\n    1,\n    2\n  ]\n}"));
  }

  void jsonWriterStreams() {
    // Streamed in chunks of a few bytes, the text is the one built whole, byte for byte.
    auto write = [](json::Writer& w) {
      w.beginObject().key("rows").beginArray();
      for (int i = 0; i < 50; ++i)
        w.beginObject().key("i").value(i).key("s").value("x\ty").endObject();
      w.endArray().key("empty").beginObject().endObject().endObject();
    };
    json::Writer whole;
    write(whole);
    std::ostringstream out;
    json::Writer streamed;
    streamed.streamTo(out, 16);
    write(streamed);
    // Something went out before the end and little is left buffered.
    QVERIFY(out.str().size() > whole.str().size() / 2);
    QVERIFY(streamed.str().size() < 64);
    out << streamed.str();
    QCOMPARE(QString::fromStdString(out.str()), QString::fromStdString(whole.str()));
  }

  void sourceMapKeepsEveryRange() {
    // Ranges of the module's file are stored compactly, anything else exactly; ids past one
    // storage chunk (8,192 entries) resolve too.
    ir::SourceMap map;
    std::vector<SourceRange> given;
    for (std::uint32_t i = 0; i < 20000; ++i) {
      SourceRange r{3, i, i + 7};
      if (i == 0)
        r = {}; // an invalid range first: it must not name the file
      else if (i % 5000 == 2)
        r = {4, i, i + 1}; // another file
      else if (i == 9000)
        r = {3, 0xffffffffu, 0xffffffffu}; // an offset near the 4 GiB limit
      else if (i == 9001)
        r = {3, 10, 10 + 65535}; // one byte too long for the compact form's length
      else if (i == 9002)
        r = {3, 10, 10 + 65534}; // the longest compact range
      else if (i == 9003)
        r = {3, 500, 400}; // reversed: kept exactly, not as a huge length
      given.push_back(r);
      QCOMPARE(map.add(r), ir::NodeId(i + 1));
    }
    QCOMPARE(map.size(), std::size_t(20000));
    for (std::size_t i = 0; i < given.size(); ++i)
      QVERIFY2(map.range(ir::NodeId(i + 1)) == given[i], qPrintable(QString::number(i)));
    QVERIFY(!map.range(0).valid());
    QVERIFY(!map.range(20001).valid());
    // Overwriting moves entries between the compact and the exact form.
    map.setRange(2, {4, 1, 2});
    QVERIFY((map.range(2) == SourceRange{4, 1, 2}));
    map.setRange(2, {3, 5, 6});
    QVERIFY((map.range(2) == SourceRange{3, 5, 6}));
    map.setRange(5003, {3, 8, 9}); // was in file 4
    QVERIFY((map.range(5003) == SourceRange{3, 8, 9}));
    ir::SourceMap copy = map;
    QVERIFY((copy.range(2) == SourceRange{3, 5, 6}));
    QVERIFY(copy.range(15003) == given[15002]);
    QVERIFY(copy.range(20000) == given[19999]);
  }

  void jsonOutputIsValidUtf8() {
    // Invalid bytes (from binary input quoted in a message) become U+FFFD.
    QCOMPARE(QString::fromStdString(json::quote("a\xff\xc3(b\xe2\x82\xac")),
             QString::fromUtf8("\"a\uFFFD\uFFFD(b\u20AC\""));
  }

  void dataFilesOfADirectory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const QString& name, const QByteArray& bytes) {
      QDir(dir.path()).mkpath(QFileInfo(dir.filePath(name)).path());
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    };
    write("b.json", "{}");
    write("a.json", "{\"k\": 1}");
    write("notes.txt", "ignored");
    write("sub/c.json", "{}");
    write("big.json", QByteArray(100, ' '));
    SourceManager sm;
    DiagnosticEngine d;
    auto flat = loadDataFiles(dir.path().toStdString(), "test", false, 64, sm, d);
    QVERIFY(flat);
    QCOMPARE(flat->size(), std::size_t(2)); // a, b sorted; big.json over the cap; no sub/, no .txt
    QCOMPARE(QString::fromStdString((*flat)[0].name), QStringLiteral("a.json"));
    QCOMPARE(QString::fromStdString(std::string(sm.text((*flat)[0].file))), QStringLiteral("{\"k\": 1}"));
    QCOMPARE(d.diagnostics().size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(d.diagnostics()[0].code), QStringLiteral("def-io"));
    QVERIFY(QString::fromStdString(d.diagnostics()[0].message).contains("big.json"));
    DiagnosticEngine d2;
    auto deep = loadDataFiles(dir.path().toStdString(), "test", true, 64, sm, d2);
    QVERIFY(deep);
    QCOMPARE(deep->size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(deep->back().name), QStringLiteral("sub/c.json"));
    DiagnosticEngine d3;
    QVERIFY(!loadDataFiles(dir.filePath("missing").toStdString(), "test", true, 64, sm, d3));
    QVERIFY(QString::fromStdString(d3.diagnostics()[0].message).contains("cannot read test directory"));
  }

  void messagesAreBounded() {
    DiagnosticEngine d;
    d.report(DiagId::SemUndefinedName, {}, "name '" + std::string(50000, 'x') + "'");
    QVERIFY(d.diagnostics()[0].message.size() <= 1003);
    QVERIFY(QString::fromStdString(d.diagnostics()[0].message).endsWith("..."));
  }

  void objectReaderReportsUnknownFields() {
    SourceManager sm;
    FileId f = sm.addBuffer("t.json", "{\"name\": \"x\", \"nmae\": 1}");
    DiagnosticEngine d;
    auto v = json::parse(sm.text(f), f, d);
    QVERIFY(v);
    json::ObjectReader r(*v, d, "thing");
    QCOMPARE(QString::fromStdString(*r.string("name", true)), QStringLiteral("x"));
    r.string("kind", true);
    r.finish();
    QVERIFY(!r.ok());
    QStringList codes;
    for (const Diagnostic& diag : d.diagnostics())
      codes << QString::fromStdString(diag.code);
    QCOMPARE(codes, (QStringList{"def-missing-field", "def-unknown-field"}));
    QVERIFY(d.diagnostics()[1].fix);
    QCOMPARE(QString::fromStdString(d.diagnostics()[1].fix->replacement),
             QStringLiteral("\"name\""));
  }

  void sha256KnownVectors() {
    QCOMPARE(QString::fromStdString(sha256Hex("")),
             QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(QString::fromStdString(sha256Hex("abc")),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    std::string million(1000000, 'a');
    QCOMPARE(QString::fromStdString(sha256Hex(million)),
             QStringLiteral("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  }

  void suggestions() {
    std::vector<std::string> names{"tma.load", "tma.store", "ldmatrix"};
    QCOMPARE(QString::fromStdString(*closestMatch("tma.lod", names)), QStringLiteral("tma.load"));
    QVERIFY(!closestMatch("completely.different", names));
    QCOMPARE(editDistance("kitten", "sitting"), std::size_t(3));
  }

  void diagnosticCap() {
    DiagnosticEngine d(3);
    for (int i = 0; i < 10; ++i)
      d.report(DiagId::SynUnexpectedToken, {}, "x");
    QCOMPARE(d.diagnostics().size(), std::size_t(4));
    QCOMPARE(d.dropped(), std::size_t(7));
    QCOMPARE(QString::fromStdString(d.diagnostics().back().code),
             QStringLiteral("syn-too-many-findings"));
  }

  void codesAreUniqueAndWellFormed() {
    QSet<QString> seen;
    for (const DiagCodeInfo& c : allDiagCodes()) {
      QString code = QString::fromUtf8(c.code.data(), int(c.code.size()));
      QVERIFY2(!seen.contains(code), qPrintable(code));
      seen.insert(code);
      QVERIFY(QRegularExpression("^[a-z]+(-[a-z0-9]+)+$").match(code).hasMatch());
      QVERIFY(findDiagCode(c.code) == &c);
    }
  }

  // The checker's 16-byte vector: exact reservation, growth past it, copies that own their
  // elements, moves that leave an empty usable vector, and push_back of its own element
  // across a reallocation.
  void compactVectorBehavesLikeAVector_data() {
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("reserved");
    for (int n : {0, 1, 2, 3, 17})
      for (int r : {0, 1, n})
        QTest::addRow("%d elements, %d reserved", n, r) << n << r;
  }
  void compactVectorBehavesLikeAVector() {
    QFETCH(int, count);
    QFETCH(int, reserved);
    static_assert(sizeof(CompactVector<std::string>) == 16);
    CompactVector<std::string> v;
    v.reserve(std::size_t(reserved));
    QCOMPARE(v.capacity(), std::size_t(reserved));
    for (int i = 0; i < count; ++i)
      v.push_back("element number " + std::to_string(i)); // past SSO: owned heap strings
    auto check = [&](const CompactVector<std::string>& x) {
      QCOMPARE(x.size(), std::size_t(count));
      QCOMPARE(x.empty(), count == 0);
      int i = 0;
      for (const std::string& e : x)
        QCOMPARE(e, "element number " + std::to_string(i++));
      QCOMPARE(i, count);
    };
    check(v);
    if (count == reserved)
      QCOMPARE(v.capacity(), std::size_t(count)); // reserve first: no slack
    CompactVector<std::string> copy(v);
    check(copy);
    CompactVector<std::string> moved(std::move(v));
    check(moved);
    QCOMPARE(v.size(), std::size_t(0));
    v.push_back("again"); // a moved-from vector is usable
    QCOMPARE(v.size(), std::size_t(1));
    v = copy;
    check(v);
    if (count > 0) {
      v.push_back(v[0]); // the argument lives in the block that the growth replaces
      QCOMPARE(v.back(), std::string("element number 0"));
      QCOMPARE(v.size(), std::size_t(count + 1));
    }
    CompactVector<int> filled;
    filled.assign(std::size_t(count), 7);
    QCOMPARE(filled.size(), std::size_t(count));
    QCOMPARE(filled.capacity(), std::size_t(count));
    for (int x : filled)
      QCOMPARE(x, 7);
    std::span<const int> view = filled;
    QCOMPARE(view.size(), std::size_t(count));
  }
};

QTEST_APPLESS_MAIN(TestSupport)
#include "tst_support.moc"
