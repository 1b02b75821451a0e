// The corpus gate library: observations of a small corpus (checked against the parts they come
// from), matching against the manifest, deltas against a baseline (one row per kind of change),
// the report read back, and the accept act rewriting exactly the named cases.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"
#include "cake/Cost/CostModel.h"
#include "cake/Gate/Gate.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace cake;

namespace {

/// A three-case corpus in a temporary folder: sm_80 (LLVM path), sm_100a (CUDA only) and a
/// negative kernel, each copied from the bundled corpus.
struct SmallCorpus {
  QTemporaryDir dir;
  driver::Manifest manifest;
  bool ok = false;

  explicit SmallCorpus(const char* manifestText = nullptr) {
    const char* files[] = {"bias_gelu/bias_gelu.cake",      "blackwell_gemm/gemm_tcgen05.cake",
                           "negative/fp32-operands.cake",   "workloads/bias_gelu.json",
                           "workloads/blackwell_gemm.json", "workloads/negative_gemm.json"};
    QDir root(dir.path());
    for (const char* f : files) {
      QString to = root.filePath(QString::fromLatin1(f));
      root.mkpath(QFileInfo(to).path());
      if (!QFile::copy(QStringLiteral(CAKE_CORPUS_DIR "/") + QString::fromLatin1(f), to))
        return;
    }
    static const char* kDefault = R"({"cases": [
      {"id": "gelu", "path": "bias_gelu/bias_gelu.cake", "workload": "workloads/bias_gelu.json",
       "expect": {"accepted": true, "codes": []}},
      {"id": "blackwell", "path": "blackwell_gemm/gemm_tcgen05.cake",
       "workload": "workloads/blackwell_gemm.json", "expect": {"accepted": true, "codes": []}},
      {"id": "fp32", "path": "negative/fp32-operands.cake",
       "workload": "workloads/negative_gemm.json",
       "expect": {"accepted": false, "codes": ["dc-dtype-mismatch"]}}]})";
    QFile m(root.filePath(QStringLiteral("manifest.json")));
    if (!m.open(QIODevice::WriteOnly))
      return;
    m.write(manifestText ? manifestText : kDefault);
    m.close();
    SourceManager sources;
    DiagnosticEngine diags;
    auto loaded = driver::loadManifest(dir.path().toStdString(), sources, diags);
    if (!loaded)
      return;
    manifest = std::move(*loaded);
    ok = true;
  }
};

const gate::GateReport& smallReport() {
  static SmallCorpus corpus;
  static gate::GateReport report =
      corpus.ok ? gate::runGate(test::compiler(), corpus.manifest) : gate::GateReport{};
  return report;
}

gate::CaseReport* findCase(gate::GateReport& r, const std::string& id) {
  for (gate::CaseReport& c : r.cases)
    if (c.id == id)
      return &c;
  return nullptr;
}

/// The JSON of a report holding just `c` (to compare case entries whole).
std::string oneCase(const gate::CaseReport& c) {
  gate::GateReport r;
  r.cases.push_back(c);
  return gate::toJson(r);
}

QStringList deltaRows(const gate::GateReport& r) {
  QStringList out;
  for (const gate::Delta& d : r.delta)
    out << QString::fromStdString(d.id + " " + d.aspect + " " + d.before + " -> " + d.after +
                                  (d.accepted ? " (accepted)" : ""));
  return out;
}

} // namespace

class TestGate : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void observesEachCase() {
    const gate::GateReport& r = smallReport();
    QCOMPARE(r.cases.size(), std::size_t{3});
    // Sorted by id, not by manifest order.
    QCOMPARE(r.cases[0].id, std::string("blackwell"));
    QCOMPARE(r.cases[1].id, std::string("fp32"));
    QCOMPARE(r.cases[2].id, std::string("gelu"));
    QCOMPARE(r.compilerRevision, test::compiler().revision());
    for (const gate::CaseReport& c : r.cases)
      QVERIFY2(c.matched, c.problem.c_str());
    QVERIFY(r.pass());

    // The positive sm_80 case, against the parts the gate is made of.
    const gate::CaseReport& gelu = r.cases[2];
    std::string error;
    auto text = readFile(CAKE_CORPUS_DIR "/bias_gelu/bias_gelu.cake", error);
    QVERIFY(text);
    driver::CheckResult check = test::compiler().check("bias_gelu/bias_gelu.cake", *text);
    QVERIFY(check.accepted);
    QVERIFY(gelu.observed.accepted);
    cost::Options co;
    co.hints = false;
    cost::Estimate e = cost::estimate(test::compiler(), check, co);
    QVERIFY(e.ok && e.predictedUs > 0);
    QVERIFY(gelu.observed.predictedUs.has_value());
    QCOMPARE(*gelu.observed.predictedUs, e.predictedUs);
    lower::LoweredKernel lk =
        lower::lowerKernel(check.module, check.model, test::compiler().registry(), *check.sources,
                           "bias_gelu/bias_gelu.cake");
    QVERIFY(lk.ok);
    lower::LlvmResult ptx = lower::emitLlvm(lk.program, {});
    QVERIFY(ptx.ok);
    QCOMPARE(gelu.observed.ptx, "sha256:" + sha256Hex(ptx.ptx));
    json::Writer w;
    lower::writeJson(w, lk.metadata);
    QCOMPARE(gelu.observed.metadata, "sha256:" + sha256Hex(w.str()));
    QCOMPARE(gelu.observed.cuda,
             "sha256:" + sha256Hex(lower::emitCuda(lk.program, lk.metadata,
                                                   {"bias_gelu/bias_gelu.cake", "gate", "gate"})));
    QVERIFY(!gelu.observed.ptxas); // not asked for

    // sm_100a: metadata and CUDA, no PTX on the LLVM path (recorded as the code).
    const gate::CaseReport& bw = r.cases[0];
    QVERIFY(bw.observed.accepted);
    QCOMPARE(bw.observed.metadata.substr(0, 7), std::string("sha256:"));
    QCOMPARE(bw.observed.cuda.substr(0, 7), std::string("sha256:"));
    QCOMPARE(bw.observed.ptx, std::string("hw-lowering-unsupported"));
    QVERIFY(bw.observed.metadata != gelu.observed.metadata);

    // The negative case: refused with its code, nothing costed or lowered.
    const gate::CaseReport& fp32 = r.cases[1];
    QVERIFY(!fp32.observed.accepted);
    QVERIFY(std::find(fp32.observed.codes.begin(), fp32.observed.codes.end(),
                      "dc-dtype-mismatch") != fp32.observed.codes.end());
    QVERIFY(std::is_sorted(fp32.observed.codes.begin(), fp32.observed.codes.end()));
    QVERIFY(!fp32.observed.predictedUs);
    QVERIFY(fp32.observed.metadata.empty() && fp32.observed.ptx.empty() &&
            fp32.observed.cuda.empty());
  }

  void deterministicAcrossJobs() {
    SmallCorpus corpus;
    QVERIFY(corpus.ok);
    gate::GateOptions one, many;
    one.jobs = 1;
    many.jobs = 3;
    std::string a = gate::toJson(gate::runGate(test::compiler(), corpus.manifest, one));
    std::string b = gate::toJson(gate::runGate(test::compiler(), corpus.manifest, many));
    QCOMPARE(a, b);
    QCOMPARE(a, gate::toJson(smallReport()));
  }

  void bundledCorpus() {
    // Every bundled case matches its manifest, and 1 or 4 workers write the same report.
    SourceManager sources;
    DiagnosticEngine diags;
    auto manifest = driver::loadManifest(CAKE_CORPUS_DIR, sources, diags);
    QVERIFY(manifest);
    QVERIFY(manifest->cases.size() >= 80);
    gate::GateOptions one, four;
    one.jobs = 1;
    four.jobs = 4;
    gate::GateReport a = gate::runGate(test::compiler(), *manifest, one);
    gate::GateReport b = gate::runGate(test::compiler(), *manifest, four);
    QCOMPARE(a.cases.size(), manifest->cases.size());
    for (const gate::CaseReport& c : a.cases)
      QVERIFY2(c.matched, (c.id + ": " + c.problem).c_str());
    QCOMPARE(gate::toJson(a), gate::toJson(b));
    std::size_t lowered = 0;
    for (const gate::CaseReport& c : a.cases)
      lowered += c.observed.ptx.rfind("sha256:", 0) == 0;
    QVERIFY2(lowered >= 7, std::to_string(lowered).c_str()); // every sm_80/sm_90a positive case
  }

  void mismatchesTheManifest_data() {
    QTest::addColumn<QString>("manifest");
    QTest::addColumn<QString>("problem");
    auto one = [](const char* path, const char* expect) {
      return QStringLiteral(R"({"cases": [{"id": "x", "path": "%1",
        "workload": "workloads/bias_gelu.json", "expect": %2}]})")
          .arg(QString::fromLatin1(path), QString::fromLatin1(expect));
    };
    QTest::newRow("accepted, expects refusal")
        << one("bias_gelu/bias_gelu.cake", R"({"accepted": false, "codes": []})")
        << "accepted, but the case expects a refusal";
    QTest::newRow("expected code missing")
        << one("bias_gelu/bias_gelu.cake", R"({"accepted": true, "codes": ["ps-view-overlap"]})")
        << "expected finding [ps-view-overlap] not reported";
    QTest::newRow("unexpected blocking finding")
        << one("negative/fp32-operands.cake", R"({"accepted": false, "codes": []})")
        << "unexpected blocking finding [dc-dtype-mismatch]";
    QTest::newRow("unreadable kernel")
        << one("no/such.cake", R"({"accepted": true, "codes": []})") << "cannot read";
  }
  void mismatchesTheManifest() {
    QFETCH(QString, manifest);
    QFETCH(QString, problem);
    QByteArray text = manifest.toUtf8();
    SmallCorpus corpus(text.constData());
    QVERIFY(corpus.ok);
    gate::GateReport r = gate::runGate(test::compiler(), corpus.manifest);
    QCOMPARE(r.cases.size(), std::size_t{1});
    QVERIFY(!r.cases[0].matched);
    QVERIFY2(QString::fromStdString(r.cases[0].problem).contains(problem),
             r.cases[0].problem.c_str());
    QVERIFY(!r.pass());
    QCOMPARE(r.mismatched(), std::size_t{1});
  }

  void deltaAgainstBaseline_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("unchanged") << "none" << QStringList{};
    QTest::newRow("verdict") << "verdict" << QStringList{R"(fp32 verdict "accepted" -> "refused")"};
    QTest::newRow("codes") << "codes" << QStringList{R"(gelu codes ["ps-view-overlap"] -> [)"};
    QTest::newRow("prediction above tolerance")
        << "prediction-1e-6" << QStringList{QStringLiteral("gelu prediction")};
    QTest::newRow("prediction within tolerance") << "prediction-1e-12" << QStringList{};
    QTest::newRow("prediction appears")
        << "prediction-null" << QStringList{QStringLiteral("gelu prediction null")};
    QTest::newRow("metadata digest") << "metadata" << QStringList{QStringLiteral("gelu metadata")};
    QTest::newRow("ptx digest") << "ptx" << QStringList{QStringLiteral("gelu ptx")};
    QTest::newRow("ptx now unsupported")
        << "ptx-code" << QStringList{QStringLiteral("blackwell ptx \"sha256:")};
    QTest::newRow("cuda digest") << "cuda" << QStringList{QStringLiteral("gelu cuda")};
    QTest::newRow("missing case") << "missing" << QStringList{R"(zz case "present" -> "missing")"};
    QTest::newRow("new case") << "new" << QStringList{R"(gelu case "absent" -> "present")"};
    QTest::newRow("ptxas on one side only") << "ptxas-one-side" << QStringList{};
    QTest::newRow("ptxas verdict") << "ptxas" << QStringList{QStringLiteral("gelu ptxas")};
  }
  void deltaAgainstBaseline() {
    QFETCH(QString, change);
    QFETCH(QStringList, expected);
    gate::GateReport current = smallReport();
    QCOMPARE(current.cases.size(), std::size_t{3});
    gate::GateReport baseline = current;
    gate::CaseReport* gelu = findCase(baseline, "gelu");
    gate::CaseReport* fp32 = findCase(baseline, "fp32");
    gate::CaseReport* bw = findCase(baseline, "blackwell");
    QVERIFY(gelu && fp32 && bw && gelu->observed.predictedUs);
    double us = *gelu->observed.predictedUs;
    if (change == "verdict")
      fp32->observed.accepted = true;
    else if (change == "codes")
      gelu->observed.codes = {"ps-view-overlap"};
    else if (change == "prediction-1e-6")
      gelu->observed.predictedUs = us * (1 + 1e-6);
    else if (change == "prediction-1e-12")
      gelu->observed.predictedUs = us * (1 + 1e-12);
    else if (change == "prediction-null")
      gelu->observed.predictedUs.reset();
    else if (change == "metadata")
      gelu->observed.metadata = "sha256:" + std::string(64, '0');
    else if (change == "ptx")
      gelu->observed.ptx = "sha256:" + std::string(64, '1');
    else if (change == "ptx-code")
      bw->observed.ptx = "sha256:" + std::string(64, '2');
    else if (change == "cuda")
      gelu->observed.cuda = "sha256:" + std::string(64, '3');
    else if (change == "missing") {
      gate::CaseReport extra = *gelu;
      extra.id = "zz";
      baseline.cases.push_back(extra);
    } else if (change == "new")
      baseline.cases.erase(baseline.cases.begin() + (gelu - baseline.cases.data()));
    else if (change == "ptxas-one-side")
      gelu->observed.ptxas = gate::PtxasVerdict{true, {}};
    else if (change == "ptxas") {
      gelu->observed.ptxas = gate::PtxasVerdict{true, {}};
      findCase(current, "gelu")->observed.ptxas = gate::PtxasVerdict{false, {"hw-toolchain-error"}};
    }
    // Through JSON, as a baseline file is read.
    SourceManager sources;
    DiagnosticEngine diags;
    auto read = gate::readReport("baseline.json", gate::toJson(baseline), sources, diags);
    QVERIFY2(read, diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message.c_str());
    gate::compareWithBaseline(current, *read);
    QStringList rows = deltaRows(current);
    QCOMPARE(rows.size(), expected.size());
    for (int i = 0; i < rows.size(); ++i)
      QVERIFY2(rows[i].startsWith(expected[i]), qPrintable(rows[i]));
    QCOMPARE(current.pass(), expected.isEmpty());
    QCOMPARE(current.unexpectedDeltas(), static_cast<std::size_t>(expected.size()));

    // Named in compareWithBaseline's accept: still listed, no longer a failure.
    gate::compareWithBaseline(current, *read, {"fp32", "gelu", "zz", "blackwell"});
    QCOMPARE(current.delta.size(), static_cast<std::size_t>(expected.size()));
    QVERIFY(current.pass());
  }

  void summarizeGroupsDeltas() {
    gate::GateReport current = smallReport();
    gate::GateReport baseline = current;
    findCase(baseline, "fp32")->observed.accepted = true;        // now refused: newly rejected
    findCase(baseline, "gelu")->observed.accepted = false;       // now accepted: newly accepted
    findCase(baseline, "gelu")->observed.codes = {"x"};          // changed findings
    findCase(baseline, "blackwell")->observed.predictedUs = 1.0; // changed prediction
    findCase(baseline, "blackwell")->observed.cuda = "sha256:0"; // changed code
    gate::CaseReport extra = *findCase(baseline, "gelu");
    extra.id = "a-gone";
    baseline.cases.push_back(extra);
    gate::compareWithBaseline(current, baseline);
    gate::DeltaSummary s = gate::summarize(current.delta);
    using V = std::vector<std::string>;
    QCOMPARE(s.newlyAccepted, V{"gelu"});
    QCOMPARE(s.newlyRejected, V{"fp32"});
    QCOMPARE(s.changedFindings, V{"gelu"});
    QCOMPARE(s.changedPredictions, V{"blackwell"});
    QCOMPARE(s.changedCode, V{"blackwell"});
    QCOMPARE(s.missingCases, V{"a-gone"});
    QCOMPARE(s.newCases, V{});
    baseline.cases.erase(baseline.cases.begin() +
                         (findCase(baseline, "fp32") - baseline.cases.data()));
    gate::compareWithBaseline(current, baseline);
    s = gate::summarize(current.delta);
    QCOMPARE(s.newCases, V{"fp32"});
    QCOMPARE(s.newlyRejected, V{});
  }

  void reportRoundTrips() {
    gate::GateReport r = smallReport();
    gate::GateReport base = r;
    findCase(base, "gelu")->observed.codes = {"x"};
    gate::compareWithBaseline(r, base);
    r.acceptedChanges.push_back({"2026-01-01T00:00:00Z", "ana", "why", "abc", {"gelu"}, r.delta});
    std::string text = gate::toJson(r);
    SourceManager sources;
    DiagnosticEngine diags;
    auto back = gate::readReport("r.json", text, sources, diags);
    QVERIFY(back);
    // The baseline's own delta is recomputed, never read; everything else survives.
    back->delta = r.delta;
    back->hasBaseline = true;
    QCOMPARE(gate::toJson(*back), text);
  }

  void malformedBaseline_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::newRow("not json") << "{"
                              << "def-json-syntax";
    QTest::newRow("no cases") << R"({"compiler_revision": "x"})"
                              << "def-missing-field";
    QTest::newRow("digest not a string")
        << R"({"compiler_revision": "x", "cases": [{"id": "a", "path": "a.cake",
              "matched": true, "problem": null, "expected": {"accepted": true, "codes": []},
              "observed": {"accepted": true, "codes": [], "predicted_us": 1.0,
              "cost_error": null, "digests": {"metadata": 3, "ptx": null, "cuda": null},
              "ptxas": null}}]})"
        << "def-invalid-value";
    QTest::newRow("duplicate case") << R"({"compiler_revision": "x", "cases": [
              {"id": "a", "path": "a", "matched": true, "expected": {"accepted": true, "codes": []},
               "observed": {"accepted": true, "codes": [], "digests": {}}},
              {"id": "a", "path": "a", "matched": true, "expected": {"accepted": true, "codes": []},
               "observed": {"accepted": true, "codes": [], "digests": {}}}]})"
                                    << "def-duplicate";
    QTest::newRow("unknown aspect")
        << R"({"compiler_revision": "x", "cases": [], "accepted_changes": [{"time": "t",
              "actor": "a", "comment": "c", "compiler_revision": "r", "cases": ["a"],
              "deltas": [{"id": "a", "aspect": "mood", "before": 1, "after": 2,
              "accepted": true}]}]})"
        << "def-invalid-value";
  }
  void malformedBaseline() {
    QFETCH(QString, text);
    QFETCH(QString, code);
    SourceManager sources;
    DiagnosticEngine diags;
    auto r = gate::readReport("b.json", text.toStdString(), sources, diags);
    QVERIFY(!r);
    QStringList codes = test::codes(diags.diagnostics(), sources);
    QVERIFY2(!codes.isEmpty() && codes[0].startsWith(code), qPrintable(codes.join(' ')));
  }

  void acceptRewritesOnlyTheNamedCases() {
    const gate::GateReport& current = smallReport();
    gate::GateReport baseline = current;
    findCase(baseline, "gelu")->observed.ptx = "sha256:" + std::string(64, 'a');
    findCase(baseline, "fp32")->observed.codes = {"old-code"};
    gate::CaseReport gone = *findCase(baseline, "gelu");
    gone.id = "gone";
    baseline.cases.push_back(gone);
    const gate::GateReport before = baseline;

    std::vector<gate::AcceptAct> recorded;
    gate::GateRecorder recorder = [&](const gate::AcceptAct& act, std::string&) {
      recorded.push_back(act);
      return true;
    };
    std::string error;
    QVERIFY2(gate::acceptChanges(baseline, current, {"gelu", "gone"}, "ana", "new PTX is right",
                                 recorder, error, "2026-12-01T20:00:00Z"),
             error.c_str());
    // gelu now equals this run, gone is removed, fp32 and blackwell untouched.
    QCOMPARE(baseline.cases.size(), std::size_t{3});
    QCOMPARE(oneCase(*findCase(baseline, "gelu")), oneCase(*current.find("gelu")));
    QVERIFY(!baseline.find("gone"));
    QCOMPARE(findCase(baseline, "fp32")->observed.codes, std::vector<std::string>{"old-code"});
    QCOMPARE(baseline.find("blackwell")->observed.cuda, before.find("blackwell")->observed.cuda);
    // The act is in the history and went to the recorder.
    QCOMPARE(baseline.acceptedChanges.size(), std::size_t{1});
    const gate::AcceptAct& act = baseline.acceptedChanges[0];
    QCOMPARE(act.actor, std::string("ana"));
    QCOMPARE(act.comment, std::string("new PTX is right"));
    QCOMPARE(act.time, std::string("2026-12-01T20:00:00Z"));
    QCOMPARE(act.cases, (std::vector<std::string>{"gelu", "gone"}));
    QCOMPARE(act.deltas.size(), std::size_t{2});
    QCOMPARE(act.deltas[0].id + " " + act.deltas[0].aspect, std::string("gelu ptx"));
    QCOMPARE(act.deltas[1].id + " " + act.deltas[1].aspect, std::string("gone case"));
    QVERIFY(act.deltas[0].accepted && act.deltas[1].accepted);
    QCOMPARE(recorded.size(), std::size_t{1});
    QCOMPARE(recorded[0].cases, act.cases);
    // What remains is exactly fp32's change.
    gate::GateReport again = current;
    gate::compareWithBaseline(again, baseline);
    QStringList rows = deltaRows(again);
    QCOMPARE(rows.size(), 1);
    QVERIFY2(rows[0].startsWith(R"(fp32 codes ["old-code"] -> [)"), qPrintable(rows[0]));
    QCOMPARE(again.acceptedChanges.size(), std::size_t{1});
  }

  void acceptIsRefused_data() {
    QTest::addColumn<QStringList>("cases");
    QTest::addColumn<QString>("actor");
    QTest::addColumn<QString>("comment");
    QTest::addColumn<bool>("recorderOk");
    QTest::addColumn<QString>("error");
    QTest::newRow("no actor") << QStringList{"gelu"} << " "
                              << "why" << true << "--actor";
    QTest::newRow("no comment") << QStringList{"gelu"} << "ana"
                                << "" << true << "--comment";
    QTest::newRow("no case") << QStringList{} << "ana"
                             << "why" << true << "name the case";
    QTest::newRow("unchanged case") << QStringList{"gelu", "blackwell"} << "ana"
                                    << "why" << true << "case 'blackwell' has no change";
    QTest::newRow("unknown case") << QStringList{"nope"} << "ana"
                                  << "why" << true << "case 'nope' is neither";
    QTest::newRow("recorder fails") << QStringList{"gelu"} << "ana"
                                    << "why" << false << "store is read-only";
  }
  void acceptIsRefused() {
    QFETCH(QStringList, cases);
    QFETCH(QString, actor);
    QFETCH(QString, comment);
    QFETCH(bool, recorderOk);
    QFETCH(QString, error);
    const gate::GateReport& current = smallReport();
    gate::GateReport baseline = current;
    findCase(baseline, "gelu")->observed.ptx = "sha256:" + std::string(64, 'a');
    const std::string before = gate::toJson(baseline);
    std::vector<std::string> ids;
    for (const QString& c : cases)
      ids.push_back(c.toStdString());
    std::string got;
    bool ok = gate::acceptChanges(
        baseline, current, ids, actor.toStdString(), comment.toStdString(),
        [&](const gate::AcceptAct&, std::string& e) {
          if (!recorderOk)
            e = "store is read-only";
          return recorderOk;
        },
        got);
    QVERIFY(!ok);
    QVERIFY2(QString::fromStdString(got).contains(error), got.c_str());
    QCOMPARE(gate::toJson(baseline), before); // nothing rewritten
  }
};

QTEST_GUILESS_MAIN(TestGate)
#include "tst_gate.moc"
