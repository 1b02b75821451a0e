// Registry tests: each kind of malformed primitive definition (hostile templates included) is
// rejected with a located finding; the inline-PTX rules; the shipped registry loads cleanly; a
// new primitive file is usable without a rebuild; definition expressions evaluate as documented.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"

#include "cake/Registry/InlinePtx.h"
#include "cake/Registry/Registry.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <set>

using namespace cake;

namespace {
const char* kBase = R"JSON({
  "name": "test.op",
  "category": "movement",
  "summary": "a test primitive",
  "targets": ["sm_90a"],
  "issue": "thread",
  "operands": [
    {"name": "dst", "kind": "buffer", "spaces": ["reg"], "access": "write", "doc": "d"},
    {"name": "src", "kind": "buffer", "spaces": ["smem"], "access": "read", "doc": "s"}
  ],
  "attributes": [
    {"name": "n", "type": "int", "default": 1, "doc": "n"}
  ],
  "constraints": [
    {"check": "elems(dst) == elems(src)", "message": "m"}
  ],
  "effects": [
    {"kind": "read", "operand": "src"},
    {"kind": "write", "operand": "dst"}
  ],
  "hardware": {"ptx": "ld.shared", "min_ptx": "1.0", "requires": [], "note": "n"},
  "cost": {"class": "shared_memory", "unit": "byte", "work": "bytes(src)"},
  "lowering": {"ptx": ["ld.shared {dst.reg}, [{src.addr}];"]}
}
)JSON";

std::string replaced(const QString& from, const QString& to) {
  QString base = QString::fromUtf8(kBase);
  if (from.isEmpty())
    return base.toStdString();
  if (!base.contains(from))
    qFatal("test bug: '%s' not in the base definition", qPrintable(from));
  return base.replace(from, to).toStdString();
}

/// The base definition with a requirements table inserted on the "hardware" line (line 21), so
/// the lines of every other field stay where the malformed rows expect them.
const char* kReqs =
    R"JSON("requirements": [{"id": "smem-aligned", "kind": "alignment", "text": "t", "ref": "PTX ISA, ld", "checked_by": ["hw-smem-alignment"]}, {"id": "fits", "kind": "limit", "text": "t", "ref": "r", "guaranteed": "by construction"}, {"id": "gap", "kind": "registers", "text": "t", "ref": "r", "unchecked": "not modelled", "when": "n > 2"}], )JSON";

std::string withRequirements(const QString& from = {}, const QString& to = {}) {
  QString reqs = QString::fromUtf8(kReqs);
  if (!from.isEmpty()) {
    if (!reqs.contains(from))
      qFatal("test bug: '%s' not in the requirements", qPrintable(from));
    reqs.replace(from, to);
  }
  return replaced("\"hardware\": {", reqs + "\"hardware\": {");
}

/// Column (1-based) of `needle` in the line of kReqs after applying from -> to (line 21).
int reqColumn(const QString& needle, const QString& from = {}, const QString& to = {}) {
  QString reqs = QString::fromUtf8(kReqs);
  if (!from.isEmpty())
    reqs.replace(from, to);
  int at = reqs.indexOf(needle);
  if (at < 0)
    qFatal("test bug: '%s' not in the requirements", qPrintable(needle));
  return 3 + at; // the line starts with two spaces of indentation
}

struct Loaded {
  SourceManager sources;
  std::unique_ptr<reg::Primitive> prim;
  std::vector<Diagnostic> diags;
};

std::unique_ptr<Loaded> load(const std::string& text) {
  auto l = std::make_unique<Loaded>();
  DiagnosticEngine d;
  FileId f = l->sources.addBuffer("test.op.json", text);
  l->prim = reg::Registry::parse("test.op.json", f, test::compiler().targets(), l->sources, d);
  l->diags = d.take();
  return l;
}
} // namespace

class TestRegistry : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void baseDefinitionIsValid() {
    auto l = load(replaced({}, {}));
    QVERIFY2(l->prim, qPrintable(test::messages(l->diags)));
    QVERIFY(l->diags.empty());
    QCOMPARE(l->prim->operands.size(), std::size_t(2));
    QCOMPARE(l->prim->lowering.templateSlots.size(), std::size_t(2));
  }

  void malformed_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("expected"); // code@line:col
    QTest::newRow("not JSON") << "\"category\": \"movement\"," << "\"category\" \"movement\","
                              << "def-json-syntax@3:14";
    QTest::newRow("bad name") << "\"test.op\"" << "\"Test.Op\"" << "def-invalid-value@2:11";
    QTest::newRow("unknown field") << "\"summary\"" << "\"summry\"" << "def-missing-field@1:1";
    QTest::newRow("unknown category") << "\"movement\"" << "\"moving\"" << "def-invalid-value@3:15";
    QTest::newRow("unknown target") << "[\"sm_90a\"]" << "[\"sm_91a\"]"
                                    << "def-unknown-target@5:15";
    QTest::newRow("target lacks feature")
        << "\"requires\": []" << "\"requires\": [\"tcgen05\"]" << "def-invalid-value@21:67";
    QTest::newRow("unknown feature") << "\"requires\": []" << "\"requires\": [\"warp-drive\"]"
                                     << "def-invalid-value@21:67";
    QTest::newRow("bad issue") << "\"thread\"" << "\"block\"" << "def-invalid-value@6:12";
    QTest::newRow("issue from missing attribute") << "\"thread\"" << "\"attr:scope\""
                                                  << "def-invalid-value@6:12";
    QTest::newRow("operand kind") << "\"kind\": \"buffer\", \"spaces\": [\"reg\"]"
                                  << "\"kind\": \"tensor\", \"spaces\": [\"reg\"]"
                                  << "def-invalid-value@8:29";
    QTest::newRow("buffer without spaces") << "\"spaces\": [\"reg\"], " << ""
                                           << "def-missing-field@8:5";
    QTest::newRow("unknown space") << "[\"reg\"]" << "[\"lmem\"]" << "def-invalid-value@8:50";
    QTest::newRow("duplicate operand") << "{\"name\": \"src\", \"kind\": \"buffer\", \"spaces\": [\"smem\"]"
                                       << "{\"name\": \"dst\", \"kind\": \"buffer\", \"spaces\": [\"smem\"]"
                                       << "def-duplicate@9:5";
    QTest::newRow("required after optional")
        << "\"access\": \"write\", \"doc\": \"d\"}"
        << "\"access\": \"write\", \"doc\": \"d\", \"optional\": true}" << "def-invalid-value@9:5";
    QTest::newRow("enum without values") << "\"type\": \"int\", \"default\": 1"
                                         << "\"type\": \"enum\", \"default\": \"a\""
                                         << "def-invalid-value@12:5";
    QTest::newRow("default of wrong type") << "\"default\": 1" << "\"default\": \"one\""
                                           << "def-invalid-value@12:45";
    QTest::newRow("optional attribute without default") << "\"default\": 1, " << ""
                                                        << "def-missing-field@12:5";
    QTest::newRow("attribute named like operand") << "{\"name\": \"n\"" << "{\"name\": \"dst\""
                                                  << "def-duplicate@12:5";
    QTest::newRow("constraint syntax") << "elems(dst) == elems(src)" << "elems(dst) == == 1"
                                       << "def-invalid-expression@15:30";
    QTest::newRow("constraint unknown operand") << "elems(dst) == elems(src)"
                                                << "elems(dst) == elems(sr)"
                                                << "def-invalid-expression@15:36";
    QTest::newRow("constraint unknown function") << "elems(dst) == elems(src)"
                                                 << "elems(dst) == size(src)"
                                                 << "def-invalid-expression@15:30";
    QTest::newRow("constraint arity") << "elems(dst) == elems(src)" << "dim(dst) == 1"
                                      << "def-invalid-expression@15:16";
    QTest::newRow("constraint bad code") << "\"message\": \"m\"" << "\"message\": \"m\", \"code\": \"Bad_Code\""
                                         << "def-invalid-value@15:67";
    // An effect kind the analyses do not model is refused as needing a compiler change.
    QTest::newRow("effect kind") << "{\"kind\": \"read\"" << "{\"kind\": \"peek\"" << "def-needs-compiler-change@18:14";
    QTest::newRow("effect unknown operand") << "\"operand\": \"src\"}" << "\"operand\": \"source\"}"
                                            << "def-invalid-value@18:33";
    QTest::newRow("effect contradicts access") << "{\"kind\": \"write\", \"operand\": \"dst\"}"
                                               << "{\"kind\": \"write\", \"operand\": \"src\"}"
                                               << "def-invalid-value@19:5";
    QTest::newRow("arrive on a buffer") << "{\"kind\": \"write\", \"operand\": \"dst\"}"
                                        << "{\"kind\": \"arrive\", \"operand\": \"dst\"}"
                                        << "def-invalid-value@19:35";
    QTest::newRow("bad completion") << "{\"kind\": \"read\", \"operand\": \"src\"}"
                                    << "{\"kind\": \"read\", \"operand\": \"src\", \"completion\": \"later\"}"
                                    << "def-invalid-value@18:54";
    QTest::newRow("template unknown slot") << "{src.addr}" << "{source.addr}"
                                           << "def-invalid-template@23:47";
    QTest::newRow("template unclosed brace") << "{src.addr}];" << "{src.addr];"
                                             << "def-invalid-template@23:47";
    QTest::newRow("template bad facet") << "{src.addr}" << "{src.street}"
                                        << "def-invalid-template@23:47";
    QTest::newRow("template operand without facet") << "{src.addr}" << "{src}"
                                                    << "def-invalid-template@23:47";
    // Registry data cannot inject code (docs/primitives.md, Lowering).
    QTest::newRow("template closes the kernel")
        << "\"ld.shared {dst.reg}, [{src.addr}];\""
        << "\"ld.shared {dst.reg}, [{src.addr}];\", \"}}\", \".visible .entry evil()\", \"{{\""
        << "def-template-injection@23:63";
    QTest::newRow("template literal brace never closed") << "\"ld.shared" << "\"{{ ld.shared"
                                                         << "def-template-injection@23:25";
    QTest::newRow("template raw operand") << "[{src.addr}]" << "[{src.addr}], %7"
                                          << "def-template-injection@23:60";
    QTest::newRow("template directive") << "\"ld.shared" << "\".loc 1 2 3; ld.shared"
                                        << "def-template-injection@23:25";
    QTest::newRow("template label") << "\"ld.shared" << "\"L: ld.shared"
                                    << "def-template-injection@23:25";
    QTest::newRow("template comment") << "];\"]" << "]; // x\"]" << "def-template-injection@23:60";
    QTest::newRow("template control character") << "];\"]" << "];\\u0001\"]"
                                                << "def-template-injection@23:24";
    QTest::newRow("enum value not a token")
        << "{\"name\": \"n\", \"type\": \"int\", \"default\": 1"
        << "{\"name\": \"n\", \"type\": \"enum\", \"values\": [\"a\", \"b;}\"], \"default\": \"a\""
        << "def-enum-token@12:51";
    QTest::newRow("lowering without template") << "{\"ptx\": [\"ld.shared {dst.reg}, [{src.addr}];\"]}"
                                               << "{}" << "def-missing-field@23:15";
    QTest::newRow("implicit without hint") << "\"issue\": \"thread\"," << "\"issue\": \"thread\", \"implicit\": true,"
                                           << "def-invalid-value@1:1";
    QTest::newRow("cost class") << "\"shared_memory\"" << "\"magic\"" << "def-invalid-value@22:21";
    QTest::newRow("not an object") << "\"hardware\": {" << "\"hardware\": 3, \"x\": {"
                                   << "def-invalid-value@21:15";
    QTest::newRow("deep nesting") << "\"summary\": \"a test primitive\""
                                  << QString("\"summary\": ") + QString(200, '[') +
                                         QString(200, ']')
                                  << "def-json-syntax@4:142";
  }
  void malformed() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, expected);
    auto l = load(replaced(from, to));
    QVERIFY(!l->prim);
    QStringList got = test::codes(l->diags, l->sources);
    QVERIFY2(!got.isEmpty(), "no finding");
    QVERIFY2(got.contains(expected), qPrintable(got.join(", ") + "\n" + test::messages(l->diags)));
  }

  void templateTokenForm() {
    // Lowering expands this form; it never re-parses the template text.
    auto l = load(replaced({}, {}));
    QVERIFY(l->prim);
    const auto& pieces = l->prim->lowering.pieces;
    QStringList got;
    for (const reg::TemplatePiece& p : pieces)
      got << (p.slot < 0 ? QString::fromStdString(p.text) : QString("<%1>").arg(p.slot));
    QCOMPARE(got, (QStringList{"ld.shared ", "<0>", ", [", "<1>", "];"}));
    // Declarations and labels inside a scope the template opens are fine; doubled braces
    // become single ones and lines are joined by newlines.
    auto scoped = load(replaced("[\"ld.shared {dst.reg}, [{src.addr}];\"]",
                                "[\"{{\", \".reg .b32 r;\", \"w: ld.shared {dst.reg}, "
                                "[{src.addr}];\", \"}}\"]"));
    QVERIFY2(scoped->prim, qPrintable(test::messages(scoped->diags)));
    QCOMPARE(QString::fromStdString(scoped->prim->lowering.pieces.front().text),
             QStringLiteral("{\n.reg .b32 r;\nw: ld.shared "));
    QCOMPARE(QString::fromStdString(scoped->prim->lowering.pieces.back().text),
             QStringLiteral("];\n}"));
  }

  void inlinePtx_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("operands"); // -1: a template (no operand references at all)
    QTest::addColumn<QString>("expected"); // part of the first issue; empty: accepted
    QTest::newRow("operands in range") << "mov.b32 %0, %1;" << 2 << "";
    QTest::newRow("operand at the bound") << "mov.b32 %0, %2;" << 2 << "'%2' but the statement has 2";
    QTest::newRow("huge operand") << "mov.b32 %0, %9999999;" << 3 << "'%9999999'";
    QTest::newRow("overflowing operand") << "mov.b32 %0, %184467440737095516170;" << 3
                                         << "'%184467440737095516170'";
    QTest::newRow("leading zeros") << "mov.b32 %0, %01;" << 2 << "";
    QTest::newRow("lone percent") << "mov.u32 %0, %laneid;" << 1 << "'%' is not followed";
    QTest::newRow("template operand") << "mov.b32 %0, 1;" << -1 << "operand reference '%0' in a template";
    QTest::newRow("scoped label and reg") << "{\n.reg .pred p;\nw:\n@!p bra w;\n}" << 0 << "";
    QTest::newRow("scope qualifiers are no labels") << "tcgen05.fence::after_thread_sync;" << 0 << "";
    QTest::newRow("vector operands") << "ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" << 5 << "";
    QTest::newRow("second entry") << "bar.sync 0;\n}\n.visible .entry evil()\n{" << 0
                                  << "'}' closes a scope";
    QTest::newRow("entry in a scope") << "{\n.entry evil() {}\n}" << 0 << "directive '.entry'";
    QTest::newRow("visible in a scope") << "{\n.visible .func f() {}\n}" << 0 << "directive '.visible'";
    QTest::newRow("entry behind an opcode-like word (fuzz_registry)")
        << "tr.visible .entry cake_evil()\n{\n}ap;" << 0 << "directive '.entry' inside an instruction";
    QTest::newRow("directive after an operand") << "bar.sync 0, .section x;" << 0
                                               << "directive '.section' inside";
    QTest::newRow("reg types and vectors") << "{\n.reg .b32 r<2>;\n.reg .v2 .f32 v;\n}" << 0 << "";
    QTest::newRow("modifiers glued to the opcode") << "cvt.rn.f16x2.f32 %0, %1, %2;" << 3 << "";
    QTest::newRow("never closed") << "{\nbar.sync 0;" << 0 << "'{' is never closed";
    QTest::newRow("newline in CUDA string") << "bar.sync 0;\r" << 0 << "byte 0x0D";
    QTest::newRow("backslash") << "bar.sync 0;\\" << 0 << "character '\\'";
  }
  void inlinePtx() {
    QFETCH(QString, text);
    QFETCH(int, operands);
    QFETCH(QString, expected);
    std::optional<std::size_t> count;
    if (operands >= 0)
      count = static_cast<std::size_t>(operands);
    auto issues = reg::checkInlinePtx(text.toStdString(), count);
    if (expected.isEmpty()) {
      QVERIFY2(issues.empty(), issues.empty() ? "" : issues.front().message.c_str());
      return;
    }
    QVERIFY(!issues.empty());
    QVERIFY2(QString::fromStdString(issues.front().message).contains(expected),
             issues.front().message.c_str());
    QVERIFY(issues.front().begin < issues.front().end);
    QVERIFY(issues.front().end <= static_cast<std::size_t>(text.size()));
  }

  void ptxEntries_data() {
    QTest::addColumn<QString>("ptx");
    QTest::addColumn<int>("entries");
    QTest::newRow("one") << ".visible .entry k(\n.param .u64 a\n)\n{\nret;\n}\n" << 1;
    QTest::newRow("two") << ".visible .entry k()\n{\n}\n.visible .entry evil()\n{\n}\n" << 2;
    QTest::newRow("comments and file names")
        << "// .entry a\n/* .entry b */\n.file 1 \"/x/.entry c.cake\"\n.entry k() {}\n" << 1;
    QTest::newRow("words containing entry") << ".visible .func entry_point() {}\n.entryx\n" << 0;
  }
  void ptxEntries() {
    QFETCH(QString, ptx);
    QFETCH(int, entries);
    QCOMPARE(reg::countPtxEntries(ptx.toStdString()), static_cast<std::size_t>(entries));
  }

  void enumTokens_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("ok");
    for (const char* v : {"ca", "32x32b", "kind::f16", "evict_first", "a.b::c"})
      QTest::newRow(v) << v << true;
    for (const char* v : {"", ".entry", "a.", "a..b", "a:b", "a:::b", "a b", "a;", "a}", "a\nb", "%0"})
      QTest::newRow(qPrintable(QString("bad %1").arg(QString(v).toHtmlEscaped()))) << v << false;
  }
  void enumTokens() {
    QFETCH(QString, value);
    QFETCH(bool, ok);
    QCOMPARE(reg::isPtxTokenWord(value.toStdString()), ok);
  }

  void requirementsRead() {
    auto l = load(withRequirements());
    QVERIFY2(l->prim, qPrintable(test::messages(l->diags)));
    QVERIFY2(l->diags.empty(), qPrintable(test::messages(l->diags)));
    const auto& r = l->prim->requirements;
    QCOMPARE(r.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(r[0].id), QStringLiteral("smem-aligned"));
    QVERIFY(r[0].status == reg::RequirementStatus::Checked);
    QCOMPARE(r[0].checkedBy, std::vector<std::string>{"hw-smem-alignment"});
    QCOMPARE(r[0].checkedByRanges.size(), std::size_t(1));
    QVERIFY(r[1].status == reg::RequirementStatus::Guaranteed);
    QCOMPARE(QString::fromStdString(r[1].reason), QStringLiteral("by construction"));
    QVERIFY(r[2].status == reg::RequirementStatus::Unchecked);
    QCOMPARE(QString::fromStdString(r[2].reason), QStringLiteral("not modelled"));
    QVERIFY(r[2].when.has_value());
    QCOMPARE(QString::fromStdString(r[2].whenText), QStringLiteral("n > 2"));
    QCOMPARE(l->prim->requirement("gap"), &r[2]);
    QVERIFY(!l->prim->requirement("nope"));
  }

  void malformedRequirements_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("at"); // text whose first character the finding points at
    QTest::newRow("unknown kind") << "\"kind\": \"limit\""
                                  << "\"kind\": \"size\""
                                  << "def-invalid-value"
                                  << "\"size\"";
    QTest::newRow("id not a code") << "\"id\": \"fits\""
                                   << "\"id\": \"Fits Well\""
                                   << "def-invalid-value"
                                   << "\"Fits Well\"";
    QTest::newRow("duplicate id") << "\"id\": \"fits\""
                                  << "\"id\": \"gap\""
                                  << "def-duplicate"
                                  << "\"gap\", \"kind\": \"registers\"";
    QTest::newRow("no status") << ", \"guaranteed\": \"by construction\""
                               << ""
                               << "def-missing-field"
                               << "{\"id\": \"fits\"";
    QTest::newRow("two statuses") << "\"guaranteed\": \"by construction\""
                                  << "\"guaranteed\": \"by construction\", \"unchecked\": \"x\""
                                  << "def-invalid-value"
                                  << "{\"id\": \"fits\"";
    QTest::newRow("empty reason") << "\"unchecked\": \"not modelled\""
                                  << "\"unchecked\": \"\""
                                  << "def-invalid-value"
                                  << "\"\", \"when\"";
    QTest::newRow("empty checked_by") << "[\"hw-smem-alignment\"]"
                                      << "[]"
                                      << "def-invalid-value"
                                      << "[]";
    QTest::newRow("checked_by not a code") << "[\"hw-smem-alignment\"]"
                                           << "[\"HW smem\"]"
                                           << "def-invalid-value"
                                           << "\"HW smem\"";
    QTest::newRow("empty ref") << "\"ref\": \"PTX ISA, ld\""
                               << "\"ref\": \"\""
                               << "def-invalid-value"
                               << "\"\", \"checked_by\"";
    QTest::newRow("when on a guaranteed requirement")
        << "\"guaranteed\": \"by construction\""
        << "\"guaranteed\": \"by construction\", \"when\": \"n > 1\""
        << "def-invalid-value"
        << "\"n > 1\"";
    QTest::newRow("when names an unknown operand") << "\"n > 2\""
                                                   << "\"elems(x) > 2\""
                                                   << "def-invalid-expression"
                                                   << "x) > 2";
    QTest::newRow("unknown field")
        << "\"text\": \"t\", \"ref\": \"r\", \"unchecked\""
        << "\"text\": \"t\", \"ref\": \"r\", \"note\": \"x\", \"unchecked\""
        << "def-unknown-field"
        << "\"note\"";
    QTest::newRow("not an object") << "{\"id\": \"fits\", \"kind\": \"limit\", \"text\": \"t\", "
                                      "\"ref\": \"r\", \"guaranteed\": \"by construction\"}"
                                   << "7"
                                   << "def-invalid-value"
                                   << "7, {";
  }
  void malformedRequirements() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, code);
    QFETCH(QString, at);
    auto l = load(withRequirements(from, to));
    QVERIFY(!l->prim);
    QString expected = code + "@21:" + QString::number(reqColumn(at, from, to));
    QStringList got = test::codes(l->diags, l->sources);
    QVERIFY2(got.contains(expected), qPrintable("want " + expected + ", got " + got.join(", ") +
                                                "\n" + test::messages(l->diags)));
  }

  /// A requirement that names a rule nobody defines is a located error in the primitive file
  /// (the rule registry loads after the primitives and cross-checks every "checked_by").
  void requirementRuleCodesExist() {
    namespace fs = std::filesystem;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    fs::path root(dir.path().toStdString());
    fs::copy(std::string(CAKE_SOURCE_DIR) + "/compiler/primitives", root / "primitives",
             fs::copy_options::recursive);
    std::string text = withRequirements("hw-smem-alignment", "hw-smem-alignmnet");
    std::ofstream(root / "primitives" / "movement" / "test.op.json") << text;
    auto c = driver::Compiler::load({(root / "primitives").string(),
                                     std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
                                     std::string(CAKE_SOURCE_DIR) + "/compiler/rules"});
    QStringList got = test::codes(c->loadDiagnostics(), c->sources());
    QString expected = "def-invalid-value@21:" +
                       QString::number(reqColumn("\"hw-smem-alignmnet\"", "hw-smem-alignment",
                                                 "hw-smem-alignmnet"));
    QCOMPARE(got, QStringList{expected});
    const Diagnostic& d = c->loadDiagnostics().front();
    QVERIFY2(d.message.find("'smem-aligned' of 'test.op' is checked by 'hw-smem-alignmnet'") !=
                 std::string::npos,
             d.message.c_str());
    QVERIFY2(d.fix && d.fix->replacement == "\"hw-smem-alignment\"", d.message.c_str());
    // Spelled right, it loads cleanly.
    std::ofstream(root / "primitives" / "movement" / "test.op.json") << withRequirements();
    auto ok = driver::Compiler::load({(root / "primitives").string(),
                                      std::string(CAKE_SOURCE_DIR) + "/compiler/targets",
                                      std::string(CAKE_SOURCE_DIR) + "/compiler/rules"});
    QVERIFY2(ok->loadDiagnostics().empty(), qPrintable(test::messages(ok->loadDiagnostics())));
  }

  /// The shipped registry states, for every primitive, what the hardware demands and how each
  /// demand is enforced, covering the classes of requirement the PTX ISA states.
  void shippedRequirements() {
    const reg::Registry& r = test::compiler().registry();
    std::set<std::string> kinds;
    std::size_t checked = 0, unchecked = 0;
    for (const auto& p : r.all()) {
      QVERIFY2(!p->requirements.empty(), p->name.c_str());
      for (const reg::RequirementDef& q : p->requirements) {
        QString where = QString::fromStdString(p->name + "/" + q.id);
        QVERIFY2(q.ref.starts_with("PTX ISA") || q.ref.starts_with("CUDA "), qPrintable(where));
        for (const std::string& code : q.checkedBy)
          QVERIFY2(test::compiler().rules().find(code),
                   qPrintable(where + ": " + QString::fromStdString(code)));
        kinds.insert(q.kind);
        checked += q.status == reg::RequirementStatus::Checked;
        unchecked += q.status == reg::RequirementStatus::Unchecked;
      }
      // Every primitive states whether it exists on the target.
      QVERIFY2(p->requirement("target"), p->name.c_str());
    }
    for (const char* k : {"alignment", "limit", "state-space", "proxy", "tmem-protocol",
                          "registers", "cluster", "async-group"})
      QVERIFY2(kinds.count(k), k);
    QVERIFY(checked > 0);
    QVERIFY(unchecked > 0);
    // The reverse index used by `cake explain`.
    auto byBox = r.requirementsCheckedBy("hw-tma-box-limit");
    QStringList names;
    for (const reg::RequirementRef& ref : byBox)
      names << QString::fromStdString(ref.primitive->name + "/" + ref.requirement->id);
    QCOMPARE(names, (QStringList{"tma.load/box-limits", "tma.store/box-limits"}));
    QCOMPARE(r.requirementsWith(reg::RequirementStatus::Unchecked).size(), unchecked);
  }

  void shippedRegistryIsValid() {
    const driver::Compiler& c = test::compiler();
    QVERIFY2(c.loadDiagnostics().empty(), qPrintable(test::messages(c.loadDiagnostics())));
    // Every primitive the issue lists is there.
    for (const char* name :
         {"ld.global", "st.global", "ld.shared", "st.shared", "cp.async", "cp.async.commit",
          "cp.async.wait", "tma.load", "tma.store", "ldmatrix", "stmatrix", "mma.sync",
          "wgmma.fence", "wgmma.mma", "wgmma.commit", "wgmma.wait", "tcgen05.alloc",
          "tcgen05.dealloc", "tcgen05.mma", "tcgen05.commit", "tcgen05.ld", "tcgen05.st",
          "ew.unary", "ew.binary", "ew.fma", "cast", "reduce.warp", "reduce.cta",
          "softmax.rescale", "reduce.argmin", "reduce.argmax", "mbarrier.init",
          "mbarrier.arrive", "mbarrier.arrive_expect_tx", "mbarrier.try_wait", "bar.sync",
          "fence.proxy.async", "setmaxnreg", "epilogue.store"})
      QVERIFY2(c.registry().find(name), name);
    // Grounding is consistent: no primitive claims a target without the features it needs.
    for (const auto& p : c.registry().all())
      for (const std::string& t : p->targets)
        for (const std::string& f : p->hardware.requires_)
          QVERIFY2(c.targets().find(t)->hasFeature(f), qPrintable(QString::fromStdString(p->name)));
  }

  void newPrimitiveNeedsNoRebuild() {
    namespace fs = std::filesystem;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    fs::path root(dir.path().toStdString());
    fs::copy(std::string(CAKE_SOURCE_DIR) + "/compiler/primitives", root / "primitives",
             fs::copy_options::recursive);
    std::string kernel = "kernel k target=sm_90a {\n  grid tiles=[1]\n  role r warps=0..1\n"
                         "  reg x : f32[4] scope=thread\n  on r {\n    ew.square x, x\n  }\n}\n";
    auto before = driver::Compiler::load({(root / "primitives").string(),
                                          std::string(CAKE_SOURCE_DIR) + "/compiler/targets"});
    auto r1 = before->check("k.cake", kernel);
    QCOMPARE(test::codes(r1.diagnostics, *r1.sources), QStringList{"sem-unknown-primitive@6:5"});
    // An approved proposal is one new data file.
    std::ofstream(root / "primitives" / "elementwise" / "ew.square.json") << R"JSON({
  "name": "ew.square", "category": "elementwise", "summary": "dst = src * src",
  "targets": ["sm_80", "sm_90a", "sm_100a"], "issue": "thread",
  "operands": [
    {"name": "dst", "kind": "buffer", "spaces": ["reg"], "access": "write", "doc": "result"},
    {"name": "src", "kind": "buffer", "spaces": ["reg"], "access": "read", "doc": "input"}],
  "constraints": [{"check": "elems(dst) == elems(src)", "code": "dc-shape-mismatch", "message": "same size"}],
  "effects": [{"kind": "read", "operand": "src"}, {"kind": "write", "operand": "dst"}],
  "hardware": {"ptx": "mul.f32", "min_ptx": "1.0", "requires": [], "note": "one FMUL per element"},
  "cost": {"class": "alu", "unit": "flop", "work": "elems(dst)"},
  "lowering": {"ptx": ["mul.f32 {dst.reg}, {src.reg}, {src.reg};"]}
})JSON";
    auto after = driver::Compiler::load({(root / "primitives").string(),
                                         std::string(CAKE_SOURCE_DIR) + "/compiler/targets"});
    QVERIFY2(after->ok(), qPrintable(test::messages(after->loadDiagnostics())));
    QVERIFY(after->revision() != before->revision());
    auto r2 = after->check("k.cake", kernel);
    QVERIFY2(r2.accepted, qPrintable(test::messages(r2.diagnostics)));
  }

  void loadLevelChecks() {
    namespace fs = std::filesystem;
    QTemporaryDir dir;
    fs::path root(dir.path().toStdString());
    fs::create_directories(root / "a");
    fs::create_directories(root / "b");
    std::ofstream(root / "a" / "test.op.json") << kBase;
    std::ofstream(root / "b" / "test.op.json") << kBase;
    std::ofstream(root / "a" / "wrong.json") << kBase;
    SourceManager sm;
    DiagnosticEngine d;
    reg::Registry r = reg::Registry::load(root.string(), test::compiler().targets(), sm, d);
    QCOMPARE(r.all().size(), std::size_t(1));
    QStringList got = test::codes(d.diagnostics(), sm);
    QCOMPARE(got, (QStringList{"def-invalid-value@2:11", "def-duplicate@2:11"}));
    DiagnosticEngine d2;
    reg::Registry none = reg::Registry::load((root / "missing").string(),
                                             test::compiler().targets(), sm, d2);
    QVERIFY(none.all().empty());
    QCOMPARE(QString::fromStdString(d2.diagnostics().at(0).code), QStringLiteral("def-io"));
  }

  void expressionsEvaluate_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("value");
    QTest::newRow("dims") << "dim(dst, 0) * dim(dst, -1)" << "32";
    QTest::newRow("bytes") << "bytes(src)" << "64";
    QTest::newRow("dtype") << "dtype(src)" << "bf16";
    QTest::newRow("in") << "dtype(src) in [f16, bf16]" << "true";
    QTest::newRow("space") << "space(src) == smem && swizzle(src) == 128B" << "true";
    QTest::newRow("attr") << "n + 1" << "5";
    QTest::newRow("pow2") << "pow2(elems(dst)) && !pow2(3)" << "true";
    QTest::newRow("out of range dim is unknown") << "dim(dst, 7)" << "?";
    QTest::newRow("division by zero is unknown") << "n / 0" << "?";
    QTest::newRow("short circuit") << "false && dim(dst, 9) == 1" << "false";
    QTest::newRow("absent operand") << "present(opt) && elems(opt) == 1" << "false";
    QTest::newRow("unknown stays unknown") << "present(opt) || elems(opt) == 1" << "?";
  }
  void expressionsEvaluate() {
    QFETCH(QString, expr);
    QFETCH(QString, value);
    reg::DefScope scope;
    scope.operands = {"dst", "src", "opt"};
    scope.attributes = {"n"};
    scope.attributeIsDynamic = {false};
    std::string text = expr.toStdString();
    SourceManager sm;
    FileId f = sm.addBuffer("e", text);
    DiagnosticEngine d;
    auto e = reg::parseDefExpr(sm.text(f), 0, text.size(), f, scope, d, false);
    QVERIFY2(e, qPrintable(test::messages(d.diagnostics())));
    struct Ctx : reg::DefContext {
      reg::OperandFacts dst, src, opt;
      const reg::OperandFacts* operand(std::size_t i) const override {
        return i == 0 ? &dst : i == 1 ? &src : &opt;
      }
      reg::DefValue attribute(std::size_t) const override { return reg::DefValue::integer(4); }
    } ctx;
    ctx.dst.present = ctx.src.present = true;
    ctx.dst.shape = {4, 8};
    ctx.src.shape = {32};
    ctx.src.dtype = ir::DType::BF16;
    ctx.src.space = ir::Space::Smem;
    ctx.src.swizzle = "128B";
    QCOMPARE(QString::fromStdString(reg::evaluate(*e, ctx).str()), value);
  }
};

QTEST_APPLESS_MAIN(TestRegistry)
#include "tst_registry.moc"
