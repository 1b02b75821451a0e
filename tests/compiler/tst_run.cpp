// The run library's pure parts: statistics and the timing protocol's rules, record JSON and exit
// codes, FAST/SLOW/ambiguous comparison, targets the device cannot run (sm_100a on sm_90), cubin
// targets, bundle validation, seeded inputs and dtype encoding, the tolerance check, the
// measurements file, the no-driver record, and run records in the workspace store.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Bundle.h"
#include "cake/Run/Executor.h"
#include "cake/Run/Protocol.h"
#include "cake/Run/Record.h"
#include "cake/Run/Runner.h"
#include "cake/Support/Sha256.h"
#include "cake/Workspace/Workspace.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace cake::run;

Q_DECLARE_METATYPE(std::vector<double>)

namespace {

void writeText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

/// A minimal CUDA ELF header: EM_CUDA, ABI version 8, SM `sm` in e_flags bits 8..15, and the
/// ptxas command-line note when `archSpecific`.
std::string fakeCubin(int sm, bool archSpecific) {
  std::string b(64, '\0');
  b[0] = 0x7f;
  b[1] = 'E';
  b[2] = 'L';
  b[3] = 'F';
  b[4] = 2;  // 64-bit
  b[5] = 1;  // little-endian
  b[7] = 65; // CUDA OS/ABI
  b[8] = 8;  // ABI version
  b[18] = static_cast<char>(190);
  std::uint32_t flags = 0x6000004u | (static_cast<std::uint32_t>(sm) << 8);
  for (int i = 0; i < 4; ++i)
    b[48 + i] = static_cast<char>((flags >> (8 * i)) & 0xff);
  b += std::string("\0-arch sm_", 10) + std::to_string(sm) + (archSpecific ? "a " : " ");
  return b;
}

struct BundleSpec {
  std::string target = "sm_90a";
  int cubinSm = 90;
  std::string metaKernel = "k";
  std::string paramName = "A";
  std::string cluster = "[1, 1, 1]";
  std::int64_t tiles = 4;
  bool corruptHash = false;
  bool dropWorkload = false;
  std::string extra = R"(, "predicted_us": 12.5, "roofline_us": 10)";
};

/// Writes a small, valid GPU bundle (kernel k: A bf16[64, 64] input, C f32[64] output) in `dir`
/// with the deviations `s` asks for.
void writeBundle(const std::string& dir, const BundleSpec& s) {
  std::string cubin = fakeCubin(s.cubinSm, s.target.back() == 'a');
  std::string metadata =
      R"({"compiler_revision": "r", "path": "k.cake", "metadata": {"kernel": ")" + s.metaKernel +
      R"(", "target": ")" + s.target +
      R"(", "threads": 128, "grid": {"tiles": [4], "tile_count": )" + std::to_string(s.tiles) +
      R"(, "schedule": "static", "ctas": 4}, "smem": {"total": 1024}, "tensor_maps": [{"name": "tmA", "source": "A", "dtype": "bf16", "global_dims": [64, 64], "global_strides_bytes": [128], "box": [64, 8], "swizzle": "128B"}]}})";
  std::string workload =
      R"({"operator": "C[m] = sum A", "tolerance": {"rtol": 0.01, "atol": 0.001}})";
  writeText(dir + "/kernel.cubin", cubin);
  writeText(dir + "/metadata.json", metadata);
  writeText(dir + "/workload.json", workload);
  std::string files =
      "{\"kernel.cubin\": \"" + (s.corruptHash ? std::string(64, '0') : cake::sha256Hex(cubin)) +
      "\", \"metadata.json\": \"" + cake::sha256Hex(metadata) + "\"" +
      (s.dropWorkload ? "" : ", \"workload.json\": \"" + cake::sha256Hex(workload) + "\"") + "}";
  std::string manifest =
      R"({"format": "cake-run-bundle", "version": 1, "kernel": "k", "target": ")" + s.target +
      R"(", "device": "gpu", "schedule_hash": "abc", "compiler_revision": "r", "image": "kernel.cubin", "image_kind": "cubin", "metadata": "metadata.json", "workload": "workload.json", "workload_id": "w", "buffers": [{"name": "A", "dtype": "bf16", "shape": [64, 64], "role": "input", "align": 16}, {"name": "C", "dtype": "f32", "shape": [64], "role": "output", "align": 16}], "params": [{"name": ")" +
      s.paramName +
      R"(", "kind": "global"}, {"name": "tmA", "kind": "tensor_map"}, {"name": "C", "kind": "global"}], "launch": {"cluster": )" +
      s.cluster + R"(, "pdl": false}, "files": )" + files + s.extra + "}";
  writeText(dir + "/manifest.json", manifest);
}

RunRecord timedRecord(std::vector<double> samples) {
  RunRecord r;
  r.kernel = "k";
  r.target = "sm_90a";
  r.workload = "w";
  r.device = DeviceInfo{"NVIDIA H200", "sm_90", 1755, 1980, 3201, "13.0"};
  r.correct = true;
  r.samplesUs = std::move(samples);
  r.stats = summarize(r.samplesUs);
  return r;
}

} // namespace

class TestRun : public QObject {
  Q_OBJECT
private slots:
  void quantiles();
  void warmup();
  void stopping_data();
  void stopping();
  void clocks_data();
  void clocks();
  void suspicious();
  void compare_data();
  void compare();
  void targets_data();
  void targets();
  void cubinTargets();
  void recordRoundTrip();
  void recordRejected_data();
  void recordRejected();
  void exitCodes_data();
  void exitCodes();
  void bundleValid();
  void bundleInvalid_data();
  void bundleInvalid();
  void inputs();
  void encodeDecode_data();
  void encodeDecode();
  void tolerance();
  void hostCheck();
  void gemms_data();
  void gemms();
  void noDriver();
  void measurements();
  void executorSpecs_data();
  void executorSpecs();
  void workspaceRuns();
};

void TestRun::quantiles() {
  Stats s = summarize({5, 1, 4, 2, 3});
  QCOMPARE(s.n, std::size_t(5));
  QCOMPARE(s.median, 3.0);
  QCOMPARE(s.q1, 2.0);
  QCOMPARE(s.q3, 4.0);
  QCOMPARE(s.min, 1.0);
  QCOMPARE(s.max, 5.0);
  QCOMPARE(s.mean, 3.0);
  QCOMPARE(s.stddev, std::sqrt(2.5));
  // Even count: linear interpolation (type 7).
  Stats e = summarize({1, 2, 3, 4});
  QCOMPARE(e.median, 2.5);
  QCOMPARE(e.q1, 1.75);
  QCOMPARE(e.q3, 3.25);
  QCOMPARE(summarize({7}).stddev, 0.0);
  QCOMPARE(summarize({}).n, std::size_t(0));
}

void TestRun::warmup() {
  ProtocolLimits l;
  QVERIFY(!warmupDone(l, 2, 1.0));     // two launches are too few however long
  QVERIFY(!warmupDone(l, 100, 0.024)); // 24 ms is too short however many
  QVERIFY(warmupDone(l, 3, 0.025));
}

void TestRun::stopping_data() {
  QTest::addColumn<std::vector<double>>("samples");
  QTest::addColumn<double>("elapsed");
  QTest::addColumn<QString>("expected");
  // 10 samples of 50 ms: 0.5 s of GPU time, no noise.
  QTest::newRow("converged at 10 samples and 0.5 s")
      << std::vector<double>(10, 50000.0) << 0.6 << "converged";
  QTest::newRow("9 samples are too few") << std::vector<double>(9, 60000.0) << 0.6 << "continue";
  QTest::newRow("10 samples but 0.49 s of GPU time")
      << std::vector<double>(10, 49000.0) << 0.6 << "continue";
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i)
    noisy.push_back(i % 2 ? 50000.0 : 51000.0); // rsd ~1 %
  QTest::newRow("noisy: continue") << noisy << 2.0 << "continue";
  QTest::newRow("200 samples: hard stop") << std::vector<double>(200, 1.0) << 0.1 << "max-samples";
  QTest::newRow("199 samples: continue") << std::vector<double>(199, 1.0) << 0.1 << "continue";
  QTest::newRow("15 s: hard stop") << noisy << 15.0 << "max-time";
  QTest::newRow("14.9 s: continue") << noisy << 14.9 << "continue";
}

void TestRun::stopping() {
  QFETCH(std::vector<double>, samples);
  QFETCH(double, elapsed);
  QFETCH(QString, expected);
  QCOMPARE(QString(toString(shouldStop(ProtocolLimits{}, samples, elapsed))), expected);
}

void TestRun::clocks_data() {
  QTest::addColumn<double>("clock");
  QTest::addColumn<bool>("accepted");
  QTest::newRow("at 75 %") << 750.0 << true;
  QTest::newRow("below 75 %") << 749.0 << false;
  QTest::newRow("boosted") << 1200.0 << true;
}

void TestRun::clocks() {
  QFETCH(double, clock);
  QFETCH(bool, accepted);
  QCOMPARE(clockAccepted(ProtocolLimits{}, clock, 1000.0), accepted);
  QVERIFY(clockAccepted(ProtocolLimits{}, std::nullopt, 1000.0)); // unknown: counts
}

void TestRun::suspicious() {
  QVERIFY(!suspicion(100, 90, 150));
  QVERIFY(suspicion(89, 90, std::nullopt)->find("below the roofline") != std::string::npos);
  QVERIFY(!suspicion(10, std::nullopt, 100)); // exactly 10x: allowed
  QVERIFY(suspicion(9.9, std::nullopt, 100)->find("10x") != std::string::npos);
}

void TestRun::compare_data() {
  QTest::addColumn<std::vector<double>>("candidate");
  QTest::addColumn<std::vector<double>>("reference");
  QTest::addColumn<QString>("verdict");
  QTest::newRow("clearly faster") << std::vector<double>{90, 91, 90, 89, 90}
                                  << std::vector<double>{100, 101, 99, 100, 100} << "FAST";
  QTest::newRow("clearly slower") << std::vector<double>{110, 111, 110, 109, 110}
                                  << std::vector<double>{100, 101, 99, 100, 100} << "SLOW";
  QTest::newRow("within noise") << std::vector<double>{98, 104, 96, 102, 100}
                                << std::vector<double>{100, 106, 95, 101, 99} << "ambiguous";
  // Medians 9 % apart, beyond both relative spreads (6 %, 7.3 %), but the interquartile ranges
  // [98, 104] and [103, 111] overlap: still ambiguous.
  QTest::newRow("overlapping quartiles")
      << std::vector<double>{98, 98, 100, 104, 104} << std::vector<double>{103, 103, 110, 111, 111}
      << "ambiguous";
  QTest::newRow("no samples") << std::vector<double>{} << std::vector<double>{1} << "incomparable";
}

void TestRun::compare() {
  QFETCH(std::vector<double>, candidate);
  QFETCH(std::vector<double>, reference);
  QFETCH(QString, verdict);
  Comparison c = compareRecords(timedRecord(candidate), timedRecord(reference));
  QCOMPARE(QString(toString(c.verdict)), verdict);
  // Records of different devices are never compared.
  RunRecord other = timedRecord(reference);
  other.device->name = "NVIDIA A100";
  Comparison d = compareRecords(timedRecord(candidate), other);
  QCOMPARE(d.verdict, Verdict::Incomparable);
  QVERIFY(d.why.find("devices differ") != std::string::npos);
}

void TestRun::targets_data() {
  QTest::addColumn<QString>("target");
  QTest::addColumn<int>("major");
  QTest::addColumn<int>("minor");
  QTest::addColumn<bool>("ptx");
  QTest::addColumn<QString>("refusal"); // "" when it runs
  QTest::newRow("sm_100a cubin on Hopper")
      << "sm_100a" << 9 << 0 << false << "only on compute capability 10.0";
  QTest::newRow("sm_90a cubin on Ampere")
      << "sm_90a" << 8 << 0 << false << "only on compute capability 9.0";
  QTest::newRow("sm_90a cubin on Blackwell")
      << "sm_90a" << 10 << 0 << false << "only on compute capability 9.0";
  QTest::newRow("sm_90a cubin on Hopper") << "sm_90a" << 9 << 0 << false << "";
  QTest::newRow("sm_100a cubin on sm_103 (B300)")
      << "sm_100a" << 10 << 3 << false << "only on compute capability 10.0";
  QTest::newRow("sm_100 cubin on sm_103") << "sm_100" << 10 << 3 << false << "";
  QTest::newRow("sm_80 cubin on sm_86") << "sm_80" << 8 << 6 << false << "";
  QTest::newRow("sm_86 cubin on sm_80")
      << "sm_86" << 8 << 0 << false << "needs compute capability 8.6";
  QTest::newRow("sm_80 cubin on Hopper") << "sm_80" << 9 << 0 << false << "major version 8";
  QTest::newRow("sm_80 PTX on Hopper") << "sm_80" << 9 << 0 << true << "";
  QTest::newRow("sm_90a PTX on Blackwell")
      << "sm_90a" << 10 << 0 << true << "only on compute capability 9.0";
}

void TestRun::targets() {
  QFETCH(QString, target);
  QFETCH(int, major);
  QFETCH(int, minor);
  QFETCH(bool, ptx);
  QFETCH(QString, refusal);
  auto cap = parseTarget(target.toStdString());
  QVERIFY(cap);
  auto why = cannotRun(*cap, major, minor, ptx);
  if (refusal.isEmpty()) {
    QVERIFY2(!why, why ? why->c_str() : "");
  } else {
    QVERIFY(why);
    QVERIFY2(why->find(refusal.toStdString()) != std::string::npos, why->c_str());
  }
  QVERIFY(!parseTarget("sm_9"));
  QVERIFY(!parseTarget("compute_90"));
  QVERIFY(!parseTarget("sm_9x"));
}

void TestRun::cubinTargets() {
  std::string error;
  auto c = cubinTarget(fakeCubin(90, true), error);
  QVERIFY2(c, error.c_str());
  QCOMPARE(c->major, 9);
  QCOMPARE(c->minor, 0);
  QVERIFY(c->archSpecific);
  c = cubinTarget(fakeCubin(86, false), error);
  QVERIFY(c);
  QCOMPARE(c->major, 8);
  QCOMPARE(c->minor, 6);
  QVERIFY(!c->archSpecific);
  QVERIFY(!cubinTarget("not an elf file at all, but long enough to hold a header........", error));
  QVERIFY(error.find("ELF") != std::string::npos);
  std::string x86 = fakeCubin(90, false);
  x86[18] = 62; // EM_X86_64
  QVERIFY(!cubinTarget(x86, error));
  QVERIFY(error.find("EM_CUDA") != std::string::npos);
  // A real cubin, when ptxas is here.
  for (const char* ptxas : {"/usr/local/cuda/bin/ptxas"}) {
    if (!std::filesystem::exists(ptxas))
      continue;
    QTemporaryDir tmp;
    std::string dir = tmp.path().toStdString();
    writeText(dir + "/k.ptx", ".version 8.0\n.target sm_90a\n.address_size 64\n"
                              ".visible .entry k() { ret; }\n");
    std::string cmd = std::string(ptxas) + " -arch=sm_90a " + dir + "/k.ptx -o " + dir + "/k.cubin";
    QCOMPARE(std::system(cmd.c_str()), 0);
    std::ifstream f(dir + "/k.cubin", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    auto real = cubinTarget(bytes, error);
    QVERIFY2(real, error.c_str());
    QCOMPARE(real->major, 9);
    QCOMPARE(real->minor, 0);
    QVERIFY(real->archSpecific);
  }
}

void TestRun::recordRoundTrip() {
  RunRecord r = timedRecord({10, 12, 11});
  r.scheduleHash = "0123456789abcdef";
  r.compilerRevision = "rev";
  r.errors.push_back({"incorrect", "3 of 4096 elements"});
  r.warnings.push_back("timed with CUDA events");
  r.baseline = Baseline{"cublasGemmEx", 9.5};
  r.timer = "cuda-events";
  r.stopReason = "converged";
  r.executor = "ssh://gpu1";
  r.predictedUs = 9.25;
  std::string text = toJson(r);
  std::string error;
  auto back = parseRecord(text, error);
  QVERIFY2(back, error.c_str());
  QCOMPARE(toJson(*back), text);
  QVERIFY(text.find("\"median_us\": 11") != std::string::npos);
  QVERIFY(text.find("\"q1_us\": 10.5") != std::string::npos);
  QVERIFY(text.find("\"predicted_us\": 9.25") != std::string::npos);
  // An unfilled record: every summary field null, n = 0.
  RunRecord empty;
  empty.kernel = "k";
  empty.errors.push_back({"no-driver", "no NVIDIA driver (libcuda.so.1 not found)"});
  std::string e = toJson(empty);
  QVERIFY(e.find("\"median_us\": null") != std::string::npos);
  QVERIFY(e.find("\"device\": null") != std::string::npos);
  QVERIFY(e.find("\"correct\": null") != std::string::npos);
  QVERIFY(e.find("\"n\": 0") != std::string::npos);
}

void TestRun::recordRejected_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("not JSON") << "{\"kernel\": "
                            << "record:1:";
  QTest::newRow("an array") << "[]"
                            << "not a JSON object";
  QTest::newRow("no samples") << R"({"kernel": "k", "protocol_version": 1, "errors": []})"
                              << "missing";
  QTest::newRow("negative sample")
      << R"({"kernel": "k", "protocol_version": 1, "errors": [], "samples_us": [1, -2]})"
      << "non-negative";
  QTest::newRow("error without code")
      << R"({"kernel": "k", "protocol_version": 1, "errors": [{}], "samples_us": []})"
      << "code";
}

void TestRun::recordRejected() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  std::string error;
  QVERIFY(!parseRecord(text.toStdString(), error));
  QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
}

void TestRun::exitCodes_data() {
  QTest::addColumn<QString>("error");
  QTest::addColumn<int>("correct"); // -1 null, 0 false, 1 true
  QTest::addColumn<int>("code");
  QTest::newRow("correct") << "" << 1 << int(kExitCorrect);
  QTest::newRow("incorrect") << "" << 0 << int(kExitIncorrect);
  QTest::newRow("unchecked") << "" << -1 << int(kExitUnchecked);
  QTest::newRow("no driver") << "no-driver" << -1 << int(kExitNoDriver);
  QTest::newRow("no device") << "no-device" << -1 << int(kExitNoDriver);
  QTest::newRow("target refused") << "target-mismatch" << -1 << int(kExitTargetRefused);
  QTest::newRow("bad bundle") << "bundle-invalid" << -1 << int(kExitUsage);
  QTest::newRow("timeout") << "timeout" << -1 << int(kExitExecutor);
  QTest::newRow("cancelled") << "cancelled" << -1 << int(kExitExecutor);
  QTest::newRow("cuda error") << "cuda-error" << -1 << int(kExitIncorrect);
}

void TestRun::exitCodes() {
  QFETCH(QString, error);
  QFETCH(int, correct);
  QFETCH(int, code);
  RunRecord r;
  if (!error.isEmpty())
    r.errors.push_back({error.toStdString(), "m"});
  if (correct >= 0)
    r.correct = correct == 1;
  QCOMPARE(exitCodeFor(r), code);
}

void TestRun::bundleValid() {
  QTemporaryDir tmp;
  std::string dir = tmp.path().toStdString();
  writeBundle(dir, {});
  std::string error;
  auto b = readBundle(dir, error);
  QVERIFY2(b, error.c_str());
  QCOMPARE(b->kernel, std::string("k"));
  QCOMPARE(b->launch.threads, std::int64_t(128));
  QCOMPARE(b->launch.tileCount, std::int64_t(4));
  QCOMPARE(b->launch.smemBytes, std::int64_t(1024));
  QCOMPARE(b->params.size(), std::size_t(3));
  QCOMPARE(b->params[1].kind, BundleParam::Kind::TensorMap);
  QCOMPARE(b->tensorMaps.size(), std::size_t(1));
  QCOMPARE(b->tensorMaps[0].swizzle, std::string("128B"));
  QCOMPARE(b->rtol, 0.01);
  QCOMPARE(b->atol, 0.001);
  QCOMPARE(b->buffer("A")->bytes(), std::int64_t(64 * 64 * 2));
  QCOMPARE(b->predictedUs, std::optional<double>(12.5));
  QCOMPARE(b->rooflineUs, std::optional<double>(10));
  QCOMPARE(recordFor(*b).predictedUs, std::optional<double>(12.5));
}

void TestRun::bundleInvalid_data() {
  QTest::addColumn<int>("which");
  QTest::addColumn<QString>("message");
  QTest::newRow("hash mismatch") << 0 << "does not match its recorded SHA-256";
  QTest::newRow("metadata of another kernel") << 1 << "the metadata is for kernel 'other'";
  QTest::newRow("param names no buffer") << 2 << "parameter 'Z' names no buffer";
  QTest::newRow("cluster does not divide grid") << 3 << "not a multiple of the cluster size";
  QTest::newRow("cubin of another target") << 4 << "the cubin is built for sm_80";
  QTest::newRow("workload not listed") << 5 << "'workload.json' is named but not listed";
  QTest::newRow("unknown target") << 6 << "unknown target 'sm_9z'";
  QTest::newRow("no manifest") << 7 << "cannot read manifest.json";
  QTest::newRow("zero roofline") << 8 << "must be positive microseconds";
}

void TestRun::bundleInvalid() {
  QFETCH(int, which);
  QFETCH(QString, message);
  QTemporaryDir tmp;
  std::string dir = tmp.path().toStdString();
  BundleSpec s;
  switch (which) {
  case 0:
    s.corruptHash = true;
    break;
  case 1:
    s.metaKernel = "other";
    break;
  case 2:
    s.paramName = "Z";
    break;
  case 3:
    s.cluster = "[2, 1, 1]";
    s.tiles = 5;
    break;
  case 4:
    s.cubinSm = 80;
    break;
  case 5:
    s.dropWorkload = true;
    break;
  case 6:
    s.target = "sm_9z";
    break;
  case 8:
    s.extra = R"(, "roofline_us": 0)";
    break;
  default:
    break;
  }
  if (which != 7)
    writeBundle(dir, s);
  std::string error;
  QVERIFY(!readBundle(dir, error));
  QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
  // A cluster that divides the grid is accepted (the boundary of row 3).
  if (which == 3) {
    s.tiles = 6;
    writeBundle(dir, s);
    QVERIFY2(readBundle(dir, error), error.c_str());
  }
}

void TestRun::inputs() {
  std::vector<double> v = generateInputs(100000, 42);
  std::size_t zeros = 0;
  for (double x : v) {
    if (x == 0) {
      ++zeros;
      continue;
    }
    double a = std::fabs(x);
    QVERIFY2(a == 0.5 || a == 1 || a == 1.5 || a == 2, qPrintable(QString::number(x)));
  }
  // About 75 % zeros (a binomial with sd ~137: 74-76 % is > 7 sd wide).
  QVERIFY2(zeros > 74000 && zeros < 76000, qPrintable(QString::number(zeros)));
  QCOMPARE(generateInputs(1000, 42), generateInputs(1000, 42));
  QVERIFY(generateInputs(1000, 42) != generateInputs(1000, 43));
}

void TestRun::encodeDecode_data() {
  QTest::addColumn<QString>("dtype");
  QTest::addColumn<int>("width");
  for (auto [d, w] : std::initializer_list<std::pair<const char*, int>>{
           {"f32", 4}, {"bf16", 2}, {"f16", 2}, {"fp8e4m3", 1}, {"fp8e5m2", 1}, {"i8", 1},
           // the IR's spelling, as `cake run` writes it into a bundle (the FP8 cluster GEMM)
           {"f8e4m3", 1}, {"f8e5m2", 1}})
    QTest::newRow(d) << d << w;
}

void TestRun::encodeDecode() {
  QFETCH(QString, dtype);
  QFETCH(int, width);
  std::vector<double> v = generateInputs(4096, 7);
  std::string bytes;
  QVERIFY(encode(v, dtype.toStdString(), bytes));
  QCOMPARE(bytes.size(), v.size() * static_cast<std::size_t>(width));
  std::vector<double> back;
  QVERIFY(decode(bytes, dtype.toStdString(), back));
  if (dtype == "i8") {
    for (std::size_t i = 0; i < v.size(); ++i)
      QCOMPARE(back[i], static_cast<double>(std::lround(v[i])));
    return;
  }
  QCOMPARE(back, v); // every generated value is exact in every float dtype
  // NaN survives (outputs are NaN-filled before the checked launch).
  QVERIFY(encode({std::nan("")}, dtype.toStdString(), bytes));
  QVERIFY(decode(bytes, dtype.toStdString(), back));
  QVERIFY(std::isnan(back[0]));
  // Known encodings.
  if (dtype == "bf16") {
    QVERIFY(encode({1.0, -2.0}, "bf16", bytes));
    QCOMPARE(bytes, std::string("\x80\x3f\x00\xc0", 4));
  }
  if (dtype == "fp8e4m3" || dtype == "f8e4m3") {
    QVERIFY(encode({1.0, 448.0}, dtype.toStdString(), bytes));
    QCOMPARE(bytes, std::string("\x38\x7e", 2));
  }
}

void TestRun::tolerance() {
  // |x - r| <= atol + rtol * |r|: exactly at the bound passes, just past fails.
  CheckResult ok = checkClose({1.5}, {1.0}, 0.25, 0.25);
  QVERIFY(ok.ok());
  CheckResult bad = checkClose({1.0, 1.5001}, {1.0, 1.0}, 0.25, 0.25);
  QCOMPARE(bad.failed, std::size_t(1));
  QCOMPARE(bad.firstBad, std::size_t(1));
  CheckResult nan = checkClose({std::nan(""), 1}, {1, 1}, 1, 1);
  QCOMPARE(nan.failed, std::size_t(1));
  QCOMPARE(nan.nans, std::size_t(1));
  QVERIFY(!checkClose({}, {}, 1, 1).ok()); // nothing checked is not a pass
}

void TestRun::hostCheck() {
  // The host oracle's judge: the value comparison as checkClose, and kmeans' argmin.
  cake::ref::Expected all;
  cake::ref::ExpectedOutput y;
  y.name = "Y";
  y.values = {1.0, 2.0, 4.0};
  y.spec.rtol = 0.25;
  y.spec.atol = 0.0;
  QVERIFY(checkExpected({1.0, 2.5, 4.0}, y, all).ok());
  CheckResult bad = checkExpected({1.0, 2.0, 5.01}, y, all);
  QCOMPARE(bad.failed, std::size_t(1));
  QCOMPARE(bad.firstBad, std::size_t(2));
  CheckResult nan = checkExpected({std::nan(""), 2.0, 4.0}, y, all);
  QCOMPARE(nan.nans, std::size_t(1));
  QCOMPARE(nan.firstBad, std::size_t(0));
  QVERIFY(!checkExpected({1.0, 2.0}, y, all).ok()); // an element missing
  // Two points, three centroids: point 0 nearest to 1 (centroid 2 within 10 %), point 1 to 0.
  all.distances = {5.0, 1.0, 1.05, 0.5, 3.0, 3.0};
  all.centroids = 3;
  cake::ref::ExpectedOutput idx;
  idx.name = "Idx";
  idx.values = {1.0, 0.0};
  idx.spec.compare = "argmin";
  idx.spec.rtol = 0.1;
  QVERIFY(checkExpected({1.0, 0.0}, idx, all).ok());
  QVERIFY(checkExpected({2.0, 0.0}, idx, all).ok()); // a near-tie is accepted
  CheckResult far = checkExpected({1.0, 2.0}, idx, all);
  QCOMPARE(far.failed, std::size_t(1));
  QCOMPARE(far.firstBad, std::size_t(1));
  QVERIFY(!checkExpected({3.0, 0.0}, idx, all).ok());  // not a centroid index
  QVERIFY(!checkExpected({0.5, 0.0}, idx, all).ok());  // not an index at all
}

void TestRun::gemms_data() {
  QTest::addColumn<QString>("op");
  QTest::addColumn<QString>("bShape"); // "N,K" or "K,N"
  QTest::addColumn<QString>("expect"); // "" none, else "m n k bKN"
  QTest::newRow("TN") << "C[m, n] = sum_k A[m, k] * B[n, k]"
                      << "48,32"
                      << "64 48 32 0";
  QTest::newRow("TN with comment") << "C[m, n] = sum_k A[m, k] * B[n, k] (a warp-specialized GEMM)"
                                   << "48,32"
                                   << "64 48 32 0";
  QTest::newRow("NN") << "C[m, n] = sum_k A[m, k] * B[k, n] (B stored row-major [K, N])"
                      << "32,48"
                      << "64 48 32 1";
  QTest::newRow("TN with B of K x N shape") << "C[m, n] = sum_k A[m, k] * B[n, k]"
                                            << "32,48"
                                            << "";
  QTest::newRow("trailing junk") << "C[m, n] = sum_k A[m, k] * B[n, k] + bias"
                                 << "48,32"
                                 << "";
  QTest::newRow("not a GEMM") << "Y[r, c] = exp(X[r, c])"
                              << "48,32"
                              << "";
  QTest::newRow("unknown buffer") << "C[m, n] = sum_k A[m, k] * W[n, k]"
                                  << "48,32"
                                  << "";
}

void TestRun::gemms() {
  QFETCH(QString, op);
  QFETCH(QString, bShape);
  QFETCH(QString, expect);
  Bundle b;
  b.workloadText = "{\"operator\": \"" + op.toStdString() + "\"}";
  auto dims = bShape.split(',');
  b.buffers = {{"A", "bf16", {64, 32}, "input", 16},
               {"B", "bf16", {dims[0].toLongLong(), dims[1].toLongLong()}, "input", 16},
               {"C", "f32", {64, 48}, "output", 16}};
  auto g = gemmContract(b);
  if (expect.isEmpty()) {
    QVERIFY(!g);
    return;
  }
  QVERIFY(g);
  QCOMPARE(QString("%1 %2 %3 %4").arg(g->m).arg(g->n).arg(g->k).arg(int(g->bKN)), expect);
  QCOMPARE(g->a + g->b + g->c, std::string("ABC"));
  // A and B of different dtypes are not one cuBLAS call.
  b.buffers[1].dtype = "f16";
  QVERIFY(!gemmContract(b));
}

void TestRun::noDriver() {
  QTemporaryDir tmp;
  std::string dir = tmp.path().toStdString();
  writeBundle(dir, {});
  std::string error;
  auto b = readBundle(dir, error);
  QVERIFY2(b, error.c_str());
  RunnerOptions o;
  o.libcuda = dir + "/libcuda.so.1"; // absent on every machine
  RunRecord r = runOnGpu(*b, o);
  QCOMPARE(r.errors.size(), std::size_t(1));
  QCOMPARE(r.errors[0].code, std::string("no-driver"));
  QVERIFY2(r.errors[0].message.find("no NVIDIA driver (" + o.libcuda + " not found)") == 0,
           r.errors[0].message.c_str());
  QVERIFY(!r.device);
  QVERIFY(!r.correct);
  QCOMPARE(r.kernel, std::string("k"));
  QCOMPARE(r.scheduleHash, std::string("abc"));
  QCOMPARE(exitCodeFor(r), int(kExitNoDriver));
  // The CPU device is a hook until the interpreter is linked in.
  RunRecord c = runOnCpu(*b, o);
  QCOMPARE(c.errors.at(0).code, std::string("no-cpu-device"));
}

void TestRun::measurements() {
  RunRecord r = timedRecord({10, 20, 30});
  std::string error;
  auto first = addMeasurement("", "hopper_gemm/gemm_ws.cake", r, error);
  QVERIFY2(first, error.c_str());
  auto second = addMeasurement(*first, "other.cake", timedRecord({5}), error);
  QVERIFY2(second, error.c_str());
  QVERIFY(second->find("\"kernel\": \"hopper_gemm/gemm_ws.cake\"") != std::string::npos);
  QVERIFY(second->find("\"measured_us\": 20") != std::string::npos);
  QVERIFY(second->find("\"measured_us\": 5") != std::string::npos);
  QVERIFY(second->find("\"target\": \"sm_90a\"") != std::string::npos);
  RunRecord wrong = r;
  wrong.correct = false;
  QVERIFY(!addMeasurement("", "k.cake", wrong, error));
  RunRecord other = r;
  other.target = "sm_80";
  QVERIFY(!addMeasurement(*first, "k.cake", other, error));
  QVERIFY(error.find("is for sm_90a") != std::string::npos);
}

void TestRun::executorSpecs_data() {
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("name"); // "" when refused
  QTest::newRow("local") << "local"
                         << "local";
  QTest::newRow("ssh") << "ssh://gpu1"
                       << "ssh://gpu1";
  QTest::newRow("ssh user port") << "ssh://me@gpu1:2222"
                                 << "ssh://me@gpu1:2222";
  QTest::newRow("slurm") << "slurm"
                         << "slurm";
  QTest::newRow("slurm partition") << "slurm:gpu"
                                   << "slurm:gpu";
  QTest::newRow("ssh option injection") << "ssh://-oProxyCommand=x"
                                        << "";
  QTest::newRow("ssh bad port") << "ssh://h:22x"
                                << "";
  QTest::newRow("ssh shell chars") << "ssh://h;rm"
                                   << "";
  QTest::newRow("empty partition") << "slurm:"
                                   << "";
  QTest::newRow("unknown") << "kubernetes"
                           << "";
}

void TestRun::executorSpecs() {
  QFETCH(QString, spec);
  QFETCH(QString, name);
  std::string error;
  auto e = makeExecutor(spec.toStdString(), {}, error);
  if (name.isEmpty()) {
    QVERIFY(!e);
    QVERIFY(!error.empty());
  } else {
    QVERIFY2(e, error.c_str());
    QCOMPARE(QString::fromStdString(e->name()), name);
  }
}

void TestRun::workspaceRuns() {
  QTemporaryDir tmp;
  auto ws =
      cake::ws::Workspace::open(tmp.path().toStdString(), cake::ws::OpenMode::CreateIfMissing);
  QVERIFY(ws);
  cake::ws::RunRow row;
  row.kernel = "gemm_ws";
  row.sourcePath = "corpus/hopper_gemm/gemm_ws.cake";
  row.scheduleHash = "abc";
  row.target = "sm_90a";
  row.device = "none";
  row.executor = "slurm";
  row.workload = "hopper_gemm";
  row.record = toJson(timedRecord({1, 2}));
  auto id = ws->addRun(row, "tester");
  QVERIFY(id);
  row.correct = true;
  row.kernel = "other";
  QVERIFY(ws->addRun(row, "tester"));
  auto all = ws->runs();
  QVERIFY(all);
  QCOMPARE(all->size(), std::size_t(2));
  QVERIFY(!(*all)[0].correct);
  QCOMPARE((*all)[1].correct, std::optional<bool>(true));
  QCOMPARE((*all)[0].record, row.record);
  auto some = ws->runs("gemm_ws");
  QVERIFY(some);
  QCOMPARE(some->size(), std::size_t(1));
  auto log = ws->auditLog();
  QVERIFY(log);
  QCOMPARE(log->back().act, std::string("run.record"));
  QCOMPARE(log->back().subject, std::string("other"));
  QVERIFY(ws->verifyAudit()->ok);
  row.record = "not json";
  QVERIFY(!ws->addRun(row, "tester"));
  QCOMPARE(ws->runs()->size(), std::size_t(2));
}

QTEST_GUILESS_MAIN(TestRun)
#include "tst_run.moc"
