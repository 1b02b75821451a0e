// Campaigns: one data row per class of bad log input (exact line, column and code, the rest
// imported), incremental import with a torn last line, the best path, an import killed with
// SIGKILL in a loop (the store stays consistent, re-import completes), and the schedule search
// (one-decision edits; same seed, byte-identical log).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "TestUtil.h"
#include "cake/Campaign/Campaign.h"
#include "cake/Campaign/Evolve.h"
#include "cake/Support/StringUtil.h"
#include "cake/Workspace/Workspace.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace cake;

namespace {

std::string corpusText(const std::string& rel) {
  std::string why;
  return readFile(std::string(CAKE_CORPUS_DIR) + "/" + rel, why).value_or("");
}

void writeText(const QString& path, const std::string& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text.data(), static_cast<qint64>(text.size()));
}

/// A log line of candidate `id` with `parents` and the given kernel.
std::string line(const std::string& id, const std::vector<std::string>& parents,
                 const std::string& kernel = "kernels/good.cake", const std::string& extra = "") {
  std::string p;
  for (const std::string& s : parents)
    p += (p.empty() ? "\"" : ",\"") + s + "\"";
  return "{\"id\":\"" + id + "\",\"parents\":[" + p + "],\"kernel\":\"" + kernel +
         "\",\"author\":{\"kind\":\"agent\",\"name\":\"t\"}" + extra + "}";
}

/// A campaign folder with a good kernel, a refused one, a too large one and a link that leads
/// out of the folder.
struct Folder {
  QTemporaryDir tmp;
  QString dir;
  Folder() {
    dir = tmp.path() + "/camp";
    writeText(dir + "/campaign.json", R"({"name": "c1", "target": "sm_80", "arms": []})");
    writeText(dir + "/kernels/good.cake", corpusText("bias_gelu/bias_gelu.cake"));
    writeText(dir + "/kernels/refused.cake", "kernel k target=sm_80 {\n  role main warps=0..1\n"
                                             "  on main {\n    nosuch.op\n  }\n}\n");
    writeText(dir + "/kernels/huge.cake", std::string(campaign::kMaxKernelBytes + 1, ' '));
    writeText(
        dir + "/kernels/limit.cake",
        corpusText("bias_gelu/bias_gelu.cake") +
            std::string(campaign::kMaxKernelBytes - corpusText("bias_gelu/bias_gelu.cake").size(),
                        '\n'));
    writeText(tmp.path() + "/outside.cake", corpusText("bias_gelu/bias_gelu.cake"));
    std::filesystem::create_symlink((tmp.path() + "/outside.cake").toStdString(),
                                    (dir + "/kernels/escape.cake").toStdString());
  }
  std::string path() const { return dir.toStdString(); }
  void log(const std::string& text) { writeText(dir + "/candidates.jsonl", text); }
  void append(const std::string& text) {
    QFile f(dir + "/candidates.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    f.write(text.data(), static_cast<qint64>(text.size()));
  }
};

ws::Workspace openWs(const QTemporaryDir& tmp) {
  auto w = ws::Workspace::open((tmp.path() + "/ws").toStdString(), ws::OpenMode::CreateIfMissing);
  if (!w)
    qFatal("%s", w.error().text().c_str());
  return std::move(*w);
}

QString describe(const campaign::ImportResult& r) {
  return QString::fromStdString(campaign::toText(r));
}

ws::CandidateRecord record(const std::string& id, std::vector<std::string> parents, bool accepted,
                           std::optional<double> predicted, std::optional<double> measured = {}) {
  ws::CandidateRecord c;
  c.id = id;
  c.parents = std::move(parents);
  c.accepted = accepted;
  c.loweredOk = accepted; // an accepted test candidate lowers unless a row says otherwise
  c.predictedUs = predicted;
  c.measuredUs = measured;
  return c;
}

ws::CandidateRecord loweringFailed(ws::CandidateRecord c) {
  c.loweredOk = false;
  return c;
}

} // namespace

Q_DECLARE_METATYPE(std::vector<ws::CandidateRecord>)

class TestCampaign : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void badInput_data();
  void badInput();
  void specErrors();
  void incremental();
  void bestPath_data();
  void bestPath();
  void showsBestPathFromStore();
  void killedImport();
  void scheduleEdits();
  void evolveDeterministic();
  void evolveTriesHintsFirst();
};

void TestCampaign::badInput_data() {
  QTest::addColumn<QString>("lines");  // after the root line "r"; '\n'-separated
  QTest::addColumn<int>("line");       // of the expected error
  QTest::addColumn<QString>("marker"); // the error's column: where this text starts on the line
  QTest::addColumn<QString>("code");
  QTest::addColumn<int>("imported");
  auto row = [](const char* name, std::string lines, int ln, std::string marker, const char* code,
                int imported) {
    QTest::newRow(name) << QString::fromStdString(lines) << ln << QString::fromStdString(marker)
                        << code << imported;
  };
  row("json syntax", R"({"id": "x", "parents": [}})", 2, "}}", "campaign-malformed-line", 1);
  row("not an object", R"([1, 2])", 2, "[1", "campaign-malformed-line", 1);
  row("missing author", R"({"id":"x","parents":[],"kernel":"kernels/good.cake"})", 2, "{",
      "campaign-missing-field", 1);
  row("bad id", line("a b", {"r"}), 2, "\"a b\"", "campaign-bad-field", 1);
  row("bad author kind",
      R"({"id":"x","parents":[],"kernel":"k","author":{"kind":"robot","name":"n"}})", 2,
      "\"robot\"", "campaign-bad-field", 1);
  row("bad measurement", line("x", {"r"}, "kernels/good.cake", R"(,"measurements":[{"us":-1}])"), 2,
      "-1", "campaign-bad-field", 1);
  row("duplicate id", line("r", {}), 2, "\"r\"", "campaign-duplicate-id", 1);
  row("unknown parent", line("x", {"r", "nope"}), 2, "\"nope\"", "campaign-unknown-parent", 1);
  row("self parent", line("x", {"x"}), 2, "\"x\"]", "campaign-lineage-cycle", 1);
  row("cycle", line("x", {"y"}) + "\n" + line("y", {"x"}) + "\n" + line("z", {"r"}), 2, "\"y\"",
      "campaign-lineage-cycle", 2);
  row("child of a bad line", line("x", {"r"}, "/etc/hostname") + "\n" + line("y", {"x"}), 3,
      "\"x\"", "campaign-parent-invalid", 1);
  row("absolute kernel", line("x", {"r"}, "/etc/hostname"), 2, "\"/etc", "campaign-kernel-outside",
      1);
  row("dot-dot kernel", line("x", {"r"}, "kernels/../../outside.cake"), 2, "\"kernels/..",
      "campaign-kernel-outside", 1);
  row("symlink out", line("x", {"r"}, "kernels/escape.cake"), 2, "\"kernels/escape",
      "campaign-kernel-outside", 1);
  row("missing kernel", line("x", {"r"}, "kernels/none.cake"), 2, "\"kernels/none",
      "campaign-kernel-missing", 1);
  row("kernel one byte too large", line("x", {"r"}, "kernels/huge.cake"), 2, "\"kernels/huge",
      "campaign-kernel-too-large", 1);
  row("line too long",
      line("x", {"r"}, "kernels/good.cake",
           ",\"rationale\":\"" + std::string(campaign::kMaxLineBytes, 'a') + "\""),
      2, "{", "campaign-line-too-long", 1);
  // The boundaries themselves are accepted: a kernel of exactly the limit, and a refused kernel
  // is a candidate (its verdict is the assessment), not an input error.
  row("kernel at the limit", line("x", {"r"}, "kernels/limit.cake"), 0, "", "", 2);
  row("refused kernel", line("x", {"r"}, "kernels/refused.cake"), 0, "", "", 2);
}

void TestCampaign::badInput() {
  QFETCH(QString, lines);
  QFETCH(int, line);
  QFETCH(QString, marker);
  QFETCH(QString, code);
  QFETCH(int, imported);
  Folder f;
  std::string text = ::line("r", {}) + "\n" + lines.toStdString() + "\n";
  f.log(text);
  ws::Workspace w = openWs(f.tmp);
  campaign::ImportOptions o;
  o.jobs = 2;
  auto r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QVERIFY2(!r.fatal, qPrintable(describe(r)));
  QCOMPARE(int(r.imported), imported);
  if (code.isEmpty()) {
    QVERIFY2(r.errors.empty(), qPrintable(describe(r)));
    return;
  }
  // Exactly one error on the row's line (other lines of the row may have their own).
  auto at = std::find_if(r.errors.begin(), r.errors.end(),
                         [&](const campaign::LogError& x) { return int(x.line) == line; });
  QVERIFY2(at != r.errors.end(), qPrintable(describe(r)));
  QCOMPARE(std::count_if(r.errors.begin(), r.errors.end(),
                         [&](const campaign::LogError& x) { return int(x.line) == line; }),
           1);
  const campaign::LogError& e = *at;
  QStringList all = QString::fromStdString(text).split('\n');
  int column = int(all.value(line - 1).indexOf(marker)) + 1;
  QVERIFY(column > 0);
  QCOMPARE(QString::fromStdString(e.code), code);
  QCOMPARE(int(e.line), line);
  QCOMPARE(int(e.column), column);
  QCOMPARE(QString::fromStdString(e.file), f.dir + "/candidates.jsonl");
  QVERIFY(!e.message.empty());
  // The store holds exactly what was reported imported.
  QCOMPARE(int(w.candidates("c1")->size()), imported);
}

void TestCampaign::specErrors() {
  Folder f;
  writeText(f.dir + "/campaign.json", "{\n  \"name\": 7\n}\n");
  f.log(line("r", {}) + "\n");
  ws::Workspace w = openWs(f.tmp);
  auto r = campaign::importCampaign(test::compiler(), w, f.path());
  QVERIFY(r.fatal);
  QCOMPARE(r.imported, std::size_t(0));
  QCOMPARE(r.errors.size(), std::size_t(1));
  QCOMPARE(QString::fromStdString(r.errors[0].code), QStringLiteral("campaign-spec"));
  QCOMPARE(r.errors[0].line, 2u);
  QCOMPARE(r.errors[0].column, 11u);
  QCOMPARE(w.campaigns()->size(), std::size_t(0));
}

void TestCampaign::incremental() {
  Folder f;
  f.log(line("r", {}) + "\n" + line("a", {"r"}) + "\n" + line("b", {"a"}) + "\n");
  ws::Workspace w = openWs(f.tmp);
  campaign::ImportOptions o;
  o.batch = 2;
  auto r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QCOMPARE(r.imported, std::size_t(3));
  QCOMPARE(r.skipped, std::size_t(0));
  // Two more lines and a torn one (an append in progress): not an error, left for later.
  std::string torn = line("e", {"d"});
  f.append(line("c", {"b"}) + "\n" + line("d", {"r"}) + "\n" + torn.substr(0, 20));
  r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QVERIFY2(r.errors.empty(), qPrintable(describe(r)));
  QCOMPARE(r.imported, std::size_t(2));
  QCOMPARE(r.skipped, std::size_t(3));
  QCOMPARE(r.pending, std::size_t(1));
  f.append(torn.substr(20) + "\n");
  r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QVERIFY2(r.errors.empty(), qPrintable(describe(r)));
  QCOMPARE(r.imported, std::size_t(1));
  QCOMPARE(r.skipped, std::size_t(5));
  QCOMPARE(r.pending, std::size_t(0));
  r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QCOMPARE(r.imported, std::size_t(0));
  QCOMPARE(r.skipped, std::size_t(6));
  auto stored = w.candidates("c1");
  QStringList ids;
  for (const auto& c : *stored)
    ids << QString::fromStdString(c.id);
  QCOMPARE(ids, QStringList({"r", "a", "b", "c", "d", "e"}));
  QCOMPARE((*stored)[5].line, 6);
  QVERIFY((*stored)[0].accepted);
  QVERIFY((*stored)[0].predictedUs.has_value());
  QVERIFY((*stored)[0].loweredOk);
  QCOMPARE((*stored)[0].loweringDigest.substr(0, 7), std::string("sha256:"));
  // One act per batch: 2 + 1 + 1 imports (batches of 2), each with its audit entry.
  int imports = 0;
  auto log = w.auditLog();
  QVERIFY(log);
  for (const auto& e : *log)
    imports += e.act == "campaign.import";
  QCOMPARE(imports, 4);
  QVERIFY(w.verifyAudit()->ok);
  // A line rewritten after its import is a located duplicate, not a silent change.
  std::string text = line("r", {}, "kernels/good.cake", R"(,"rationale":"edited")") + "\n";
  for (const char* id : {"a", "b", "c", "d", "e"})
    text += line(id, {"r"}) + "\n";
  f.log(text);
  r = campaign::importCampaign(test::compiler(), w, f.path(), o);
  QCOMPARE(r.imported, std::size_t(0));
  // Lines 2 ("a") and 5 ("d") are unchanged and skipped; r, b, c and e changed.
  QCOMPARE(r.skipped, std::size_t(2));
  QStringList where;
  for (const auto& e : r.errors)
    where << QString::fromStdString(e.code) + "@" + QString::number(e.line) + ":" +
                 QString::number(e.column);
  QCOMPARE(where, QStringList({"campaign-duplicate-id@1:7", "campaign-duplicate-id@3:7",
                               "campaign-duplicate-id@4:7", "campaign-duplicate-id@6:7"}));
}

void TestCampaign::bestPath_data() {
  QTest::addColumn<std::vector<ws::CandidateRecord>>("candidates");
  QTest::addColumn<QStringList>("path");
  using C = std::vector<ws::CandidateRecord>;
  QTest::newRow("empty") << C{} << QStringList();
  QTest::newRow("none accepted") << C{record("r", {}, false, {})} << QStringList();
  QTest::newRow("chain") << C{record("r", {}, true, 10.0), record("a", {"r"}, true, 8.0),
                              record("b", {"a"}, true, 5.0), record("c", {"r"}, true, 6.0)}
                         << QStringList{"r", "a", "b"};
  QTest::newRow("refused faster child ignored")
      << C{record("r", {}, true, 10.0), record("a", {"r"}, false, 1.0)} << QStringList{"r"};
  // A kernel that cannot be emitted cannot run, however fast its prediction.
  QTest::newRow("lowering-failed faster child ignored")
      << C{record("r", {}, true, 10.0), record("a", {"r"}, true, 8.0),
           loweringFailed(record("b", {"a"}, true, 1.0))}
      << QStringList{"r", "a"};
  QTest::newRow("measured beats predicted")
      << C{record("r", {}, true, 10.0), record("a", {"r"}, true, 5.0, 9.0),
           record("b", {"r"}, true, 6.0)}
      << QStringList{"r", "b"};
  QTest::newRow("tie keeps the earlier")
      << C{record("r", {}, true, 10.0), record("a", {"r"}, true, 5.0),
           record("b", {"r"}, true, 5.0)}
      << QStringList{"r", "a"};
  QTest::newRow("first parent followed")
      << C{record("r", {}, true, 10.0), record("q", {}, true, 9.0),
           record("a", {"q", "r"}, true, 4.0)}
      << QStringList{"q", "a"};
}

void TestCampaign::bestPath() {
  QFETCH(std::vector<ws::CandidateRecord>, candidates);
  QFETCH(QStringList, path);
  QStringList got;
  for (const std::string& id : campaign::bestPath(candidates))
    got << QString::fromStdString(id);
  QCOMPARE(got, path);
}

void TestCampaign::showsBestPathFromStore() {
  Folder f;
  auto m = [](double us) { return ",\"measurements\":[{\"us\":" + std::to_string(us) + "}]"; };
  f.log(line("r", {}, "kernels/good.cake", m(10)) + "\n" +
        line("a", {"r"}, "kernels/good.cake", m(8)) + "\n" +
        line("b", {"a"}, "kernels/good.cake", m(5) + ",\"arm\":\"x\"") + "\n" +
        line("c", {"r"}, "kernels/refused.cake", m(1)) + "\n");
  ws::Workspace w = openWs(f.tmp);
  auto r = campaign::importCampaign(test::compiler(), w, f.path());
  QCOMPARE(r.imported, std::size_t(4));
  auto c = w.campaign("c1");
  QVERIFY(c && *c);
  auto cands = w.candidates("c1");
  QVERIFY(!(*cands)[3].accepted);
  QVERIFY(!(*cands)[3].codes.empty());
  QCOMPARE((*cands)[2].arm, std::string("x"));
  QCOMPARE(*(*cands)[2].measuredUs, 5.0);
  std::string json = campaign::showJson(**c, *cands);
  QVERIFY2(json.find("\"best_path\": [\n    \"r\",\n    \"a\",\n    \"b\"\n  ]") !=
               std::string::npos,
           json.c_str());
}

void TestCampaign::killedImport() {
  // A chain of 96 candidates imported in batches of 8 by a child killed at a random moment,
  // 10 times: the store stays consistent (whole batches, parents present, audit verifies) and
  // the last import completes the campaign.
  Folder f;
  constexpr int kCount = 160, kBatch = 8;
  std::string text = line("c0", {}) + "\n";
  for (int i = 1; i < kCount; ++i)
    text += line("c" + std::to_string(i), {"c" + std::to_string(i - 1)}) + "\n";
  f.log(text);
  { openWs(f.tmp); }
  const std::string wsDir = (f.tmp.path() + "/ws").toStdString();
  std::mt19937 rng(20261202);
  int partial = 0;
  for (int round = 0; round < 10; ++round) {
    pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      auto w = ws::Workspace::open(wsDir, ws::OpenMode::MustExist);
      if (!w)
        _exit(3);
      campaign::ImportOptions o;
      o.jobs = 1;
      o.batch = kBatch;
      for (;;)
        campaign::importCampaign(test::compiler(), *w, f.path(), o);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 1200));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    auto w = ws::Workspace::open(wsDir, ws::OpenMode::MustExist);
    QVERIFY2(w, w ? "" : w.error().text().c_str());
    auto report = w->verifyAudit();
    QVERIFY2(report && report->ok, report ? report->message.c_str() : "");
    auto stored = w->candidates("c1");
    QVERIFY(stored);
    std::set<std::string> ids;
    for (const auto& c : *stored) {
      for (const std::string& p : c.parents)
        QVERIFY2(ids.count(p), qPrintable(QString::fromStdString(c.id + " without " + p)));
      ids.insert(c.id);
    }
    QCOMPARE(int(stored->size()) % kBatch, 0);
    std::size_t logged = 0;
    auto log = w->auditLog();
    QVERIFY(log);
    for (const auto& e : *log)
      if (e.act == "campaign.import")
        logged += static_cast<std::size_t>(std::count(e.payload.begin(), e.payload.end(), ',')) + 1;
    QCOMPARE(logged, stored->size());
    partial += stored->size() > 0 && stored->size() < std::size_t(kCount);
  }
  auto w = ws::Workspace::open(wsDir, ws::OpenMode::MustExist);
  auto r = campaign::importCampaign(test::compiler(), *w, f.path());
  QVERIFY2(r.errors.empty(), qPrintable(describe(r)));
  QCOMPARE(int(w->candidates("c1")->size()), kCount);
  QCOMPARE(int(r.imported + r.skipped), kCount);
  // The kills did land inside imports (otherwise the test proved nothing).
  QVERIFY2(partial > 0, "no kill left a partial import");
}

void TestCampaign::scheduleEdits() {
  auto check = test::compiler().check("gemm_ws.cake", corpusText("hopper_gemm/gemm_ws.cake"));
  QVERIFY(check.accepted);
  QStringList got;
  for (const auto& e : campaign::scheduleEdits(check))
    got << QString::fromStdString(e.rationale());
  QStringList expected{"pipeline ring stages: 4 -> 3",
                       "pipeline ring stages: 4 -> 5",
                       "grid schedule: persistent -> static",
                       "const BM: 128 -> 64",
                       "const BM: 128 -> 256",
                       "const BN: 128 -> 64",
                       "const BN: 128 -> 256",
                       "const BK: 64 -> 32",
                       "const BK: 64 -> 128",
                       "role producer regs: 40 -> 32",
                       "role producer regs: 40 -> 48",
                       "role consumer regs: 232 -> 224",
                       "role consumer regs: 232 -> 240",
                       "swizzle: 128B -> 64B",
                       "wgmma.wait pending (line 74): 0 -> 1"};
  QCOMPARE(got, expected);
  // Each edit changes exactly its decision: the stage edit moves the later buffers too.
  auto edits = campaign::scheduleEdits(check);
  QVERIFY(edits[1].text.find("pipeline ring stages=5") != std::string::npos);
  QVERIFY(edits[1].text.find("smem b_s : bf16[BN, BK] offset=81920 stages=5") != std::string::npos);
  QVERIFY(edits[13].text.find("swizzle=128B") == std::string::npos);
}

void TestCampaign::evolveDeterministic() {
  QTemporaryDir tmp;
  std::string kernel = std::string(CAKE_CORPUS_DIR) + "/hopper_gemm/gemm_ws.cake";
  campaign::EvolveOptions o;
  o.budget = 12;
  o.seed = 7;
  o.campaign = "det";
  o.timestamp = "2026-12-01T00:00:00.000Z";
  o.jobs = 2;
  auto run = [&](const QString& out, std::uint64_t seed) {
    o.seed = seed;
    auto r = campaign::evolve(test::compiler(), kernel, out.toStdString(), o);
    if (!r.ok)
      qWarning("%s", r.error.c_str());
    std::string why;
    return readFile((out + "/candidates.jsonl").toStdString(), why).value_or("");
  };
  std::string a = run(tmp.path() + "/a", 7), b = run(tmp.path() + "/b", 7),
              c = run(tmp.path() + "/c", 8);
  QCOMPARE(std::count(a.begin(), a.end(), '\n'), 13); // the root and 12 children
  QCOMPARE(a, b);
  // Another seed searches otherwise (not only its "run" label differs).
  auto unlabelled = [](std::string log) {
    for (std::size_t at; (at = log.find("seed=")) != std::string::npos;)
      log.erase(at, log.find('"', at) - at);
    return log;
  };
  QVERIFY(unlabelled(a) != unlabelled(c));
  // Every child names its parent and its one edit.
  QVERIFY(a.find("\"author\":{\"kind\":\"search\"") != std::string::npos);
  QVERIFY(a.find("\"rationale\":\"") != std::string::npos);
  // A second arm joins the same folder; a repeated arm name is refused.
  o.arm = "b";
  o.strategy = campaign::Strategy::MapElites;
  auto r = campaign::evolve(test::compiler(), kernel, (tmp.path() + "/a").toStdString(), o);
  QVERIFY2(r.ok, r.error.c_str());
  QCOMPARE(r.candidates, std::size_t(12));
  r = campaign::evolve(test::compiler(), kernel, (tmp.path() + "/a").toStdString(), o);
  QVERIFY(!r.ok);
  ws::Workspace w = openWs(tmp);
  auto imp = campaign::importCampaign(test::compiler(), w, (tmp.path() + "/a").toStdString());
  QVERIFY2(imp.errors.empty(), qPrintable(describe(imp)));
  QCOMPARE(imp.imported, std::size_t(25));
}

void TestCampaign::evolveTriesHintsFirst() {
  // The Flash-KMeans assign kernel's cost model hints a second `xr` stage: the search proposes
  // that edit first; without hints the first child is a random edit.
  QTemporaryDir tmp;
  std::string kernel = std::string(CAKE_CORPUS_DIR) + "/flash_kmeans/assign.cake";
  campaign::EvolveOptions o;
  o.budget = 1;
  o.campaign = "hints";
  o.jobs = 1;
  auto first = [&](const QString& out) {
    auto r = campaign::evolve(test::compiler(), kernel, out.toStdString(), o);
    std::string why;
    std::string log = readFile((out + "/candidates.jsonl").toStdString(), why).value_or("");
    std::size_t at = log.find("\"rationale\":\"", log.find('\n'));
    return std::make_pair(r, at == std::string::npos
                                 ? std::string()
                                 : log.substr(at + 13, log.find('"', at + 13) - (at + 13)));
  };
  auto [hinted, why] = first(tmp.path() + "/h");
  QVERIFY2(hinted.ok, hinted.error.c_str());
  QCOMPARE(QString::fromStdString(why),
           QStringLiteral("pipeline xr stages: 1 -> 2 (cost-model hint: -26% predicted)"));
  QCOMPARE(hinted.accepted, std::size_t(1));
  QCOMPARE(hinted.bestId, std::string("a-0001"));
  o.hints = false;
  auto [blind, blindWhy] = first(tmp.path() + "/b");
  QVERIFY(blind.ok);
  QVERIFY2(blindWhy.find("hint") == std::string::npos, blindWhy.c_str());
}

QTEST_GUILESS_MAIN(TestCampaign)
#include "tst_campaign.moc"
