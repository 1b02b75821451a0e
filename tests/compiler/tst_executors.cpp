// The executors against real daemons: a private sshd (scripts/ssh-local) and a one-node Slurm
// cluster (scripts/slurm-local), both started here and stopped after. A real bundle of a corpus
// kernel goes through each executor to the real `cake-run`, whose record comes back intact (on
// a machine without a GPU: its "no driver" record); timeouts and cancel kill the runner (ssh:
// by pid on the host; Slurm: scancel). Skipped, with the reason, only when a daemon cannot start
// for an environmental reason (tool missing, not root: the scripts exit 77).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Bundle.h"
#include "cake/Run/Executor.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace cake::run;

#ifndef CAKE_BIN_DIR
#error "CAKE_BIN_DIR must name the directory of cake and cake-run"
#endif

namespace {

const std::string kSource = CAKE_SOURCE_DIR;
const std::string kBin = CAKE_BIN_DIR;

struct Script {
  int code = -1;
  QString out, err;
};

Script runScript(const QString& program, const QStringList& args, int timeoutMs = 120000) {
  QProcess p;
  p.start(program, args);
  Script s;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    s.err = "timed out";
    return s;
  }
  s.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  s.out = QString::fromLocal8Bit(p.readAllStandardOutput());
  s.err = QString::fromLocal8Bit(p.readAllStandardError());
  return s;
}

bool alive(const std::string& pid) {
  if (pid.empty())
    return false;
  std::string stat;
  std::ifstream f("/proc/" + pid + "/stat");
  std::getline(f, stat);
  // A zombie is dead for our purposes (its parent reaps it).
  auto close = stat.rfind(')');
  return !stat.empty() && close != std::string::npos && stat.size() > close + 2 &&
         stat[close + 2] != 'Z';
}

/// Processes whose command line contains `needle` (to find runners left behind).
std::vector<std::string> processesWith(const std::string& needle) {
  std::vector<std::string> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::ifstream f(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(f)), {});
    if (cmd.find(needle) != std::string::npos && alive(name))
      pids.push_back(name);
  }
  return pids;
}

} // namespace

class TestExecutors : public QObject {
  Q_OBJECT
private slots:
  void initTestCase();
  void cleanupTestCase();
  void local();
  void sshRoundTrip();
  void sshTimeout();
  void sshCancel();
  void sshUnreachable();
  void slurmRoundTrip();
  void slurmTimeout();
  void slurmCancel();
  void slurmRequeue();
  void cliThroughSsh();

private:
  ExecRequest request(double timeout = 120) const {
    ExecRequest r;
    r.bundleDir = m_bundle;
    r.runner = kBin + "/cake-run";
    r.timeoutSeconds = timeout;
    return r;
  }
  void checkRecord(const ExecResult& res, const std::string& executorName);
  /// The host is this machine: its work directories go under the test's temporary directory,
  /// so that cleanupTestCase sees any runner left behind.
  ExecutorOptions sshOptions() const {
    ExecutorOptions o;
    o.sshConfig = m_sshConfig;
    o.remoteTmp = m_tmp.path().toStdString() + "/remote";
    std::filesystem::create_directories(o.remoteTmp);
    return o;
  }
  /// The one-node cluster: work directories in the test's shared folder (a real cluster's shared
  /// file system), polled often so that the tests stay quick.
  ExecutorOptions slurmOptions() const {
    ExecutorOptions o;
    o.sharedDir = m_tmp.path().toStdString() + "/shared";
    o.pollSeconds = 0.2;
    return o;
  }
  /// Runs `req` on `e` and sets its cancel flag after `afterMs` milliseconds.
  static ExecResult runCancelledAfter(Executor& e, ExecRequest req, int afterMs) {
    std::atomic<bool> cancel{false};
    req.cancel = &cancel;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(afterMs));
      cancel = true;
    });
    ExecResult res = e.run(req);
    canceller.join();
    return res;
  }
  /// What a stopped Slurm job left behind: the job still queued or running, or a runner of it
  /// still alive (found by its work directory under `sharedDir`); empty when nothing.
  static QString slurmLeftovers(const ExecResult& res, const std::string& sharedDir) {
    Script q = runScript("squeue",
                         {"-h", "-j", QString::fromStdString(res.jobId), "-t", "all", "-o", "%T"});
    if (q.out.contains("RUNNING") || q.out.contains("PENDING"))
      return "job still queued: " + q.out;
    if (!processesWith(sharedDir + "/run-").empty())
      return QStringLiteral("a runner of the job still runs");
    return {};
  }

  QTemporaryDir m_tmp;
  std::string m_bundle;
  std::string m_sshState, m_sshConfig, m_slurmState, m_slurmConf;
  bool m_sshUp = false, m_slurmUp = false;
  QString m_sshSkip, m_slurmSkip;
  std::string m_kernel, m_scheduleHash;
};

void TestExecutors::initTestCase() {
  QVERIFY(m_tmp.isValid());
  std::string root = m_tmp.path().toStdString();
  // A real bundle of a corpus kernel (sm_80 cubin through ptxas when present; the CPU device
  // otherwise, which needs no toolchain).
  m_bundle = root + "/bundle";
  bool havePtxas = std::filesystem::exists("/usr/local/cuda/bin/ptxas");
  Script b = runScript(QString::fromStdString(kBin + "/cake"),
                       {"run", QString::fromStdString(kSource + "/corpus/bias_gelu/bias_gelu.cake"),
                        "--device", havePtxas ? "gpu" : "cpu", "--bundle",
                        QString::fromStdString(m_bundle), "--bundle-only"});
  QVERIFY2(b.code == 0, qPrintable(b.err));
  std::string error;
  auto bundle = readBundle(m_bundle, error);
  QVERIFY2(bundle, error.c_str());
  m_kernel = bundle->kernel;
  m_scheduleHash = bundle->scheduleHash;
  QCOMPARE(m_kernel, std::string("bias_gelu"));
  QCOMPARE(m_scheduleHash.size(), std::size_t(16));

  QElapsedTimer t;
  t.start();
  m_sshState = root + "/ssh";
  Script s = runScript(QString::fromStdString(kSource + "/scripts/ssh-local"),
                       {"start", QString::fromStdString(m_sshState)});
  if (s.code == 77)
    m_sshSkip = s.err.trimmed();
  else
    QVERIFY2(s.code == 0, qPrintable(s.err));
  m_sshUp = s.code == 0;
  m_sshConfig = s.out.trimmed().toStdString();
  qInfo("sshd started in %lld ms", static_cast<long long>(t.restart()));

  m_slurmState = root + "/slurm";
  Script c = runScript(QString::fromStdString(kSource + "/scripts/slurm-local"),
                       {"start", QString::fromStdString(m_slurmState)});
  if (c.code == 77)
    m_slurmSkip = c.err.trimmed();
  else
    QVERIFY2(c.code == 0, qPrintable(c.err));
  m_slurmUp = c.code == 0;
  m_slurmConf = m_slurmState + "/slurm.conf";
  // The Slurm client tools read the cluster's configuration from SLURM_CONF.
  if (m_slurmUp)
    qputenv("SLURM_CONF", QByteArray::fromStdString(m_slurmConf));
  qInfo("slurm cluster started in %lld ms", static_cast<long long>(t.elapsed()));
}

void TestExecutors::cleanupTestCase() {
  std::vector<std::string> pidFiles;
  for (const char* f : {"slurmctld.pid", "slurmd.pid", "munged.pid"})
    pidFiles.push_back(m_slurmState + "/" + f);
  pidFiles.push_back(m_sshState + "/sshd.pid");
  std::vector<std::string> pids;
  for (const std::string& f : pidFiles) {
    std::ifstream in(f);
    std::string pid;
    if (in >> pid)
      pids.push_back(pid);
  }
  if (m_sshUp)
    QCOMPARE(runScript(QString::fromStdString(kSource + "/scripts/ssh-local"),
                       {"stop", QString::fromStdString(m_sshState)})
                 .code,
             0);
  if (m_slurmUp)
    QCOMPARE(runScript(QString::fromStdString(kSource + "/scripts/slurm-local"),
                       {"stop", QString::fromStdString(m_slurmState)})
                 .code,
             0);
  // Everything they started is gone.
  for (const std::string& pid : pids)
    QVERIFY2(!alive(pid), ("daemon " + pid + " still runs").c_str());
  QVERIFY(processesWith(m_tmp.path().toStdString() + "/").empty());
}

void TestExecutors::checkRecord(const ExecResult& res, const std::string& executorName) {
  QVERIFY2(res.error.empty(), (res.error + "\n" + res.log).c_str());
  QVERIFY2(res.record, res.log.c_str());
  const RunRecord& r = *res.record;
  // The record is the runner's own, intact: kernel and hashes of the bundle, and on this
  // machine without a GPU its no-driver error (exit 3). With a driver (a GPU machine) the
  // run itself is checked by the gpu-labelled tests instead.
  QCOMPARE(r.kernel, m_kernel);
  QCOMPARE(r.scheduleHash, m_scheduleHash);
  QCOMPARE(r.target, std::string("sm_80"));
  QCOMPARE(r.protocolVersion, kProtocolVersion);
  if (r.deviceKind == "gpu" && r.hasError("no-driver")) {
    QCOMPARE(res.runnerExit, int(kExitNoDriver));
    QVERIFY(r.errors[0].message.find("no NVIDIA driver (libcuda.so.1 not found)") == 0);
    QVERIFY(!r.device);
    QVERIFY(r.samplesUs.empty());
  } else if (r.deviceKind == "cpu") {
    // Hook: once the CPU interpreter is linked into cake-run this is its record.
    QCOMPARE(res.runnerExit, exitCodeFor(r));
  }
  std::string error;
  auto again = parseRecord(res.recordText, error);
  QVERIFY2(again, error.c_str());
  QCOMPARE(toJson(*again), toJson(r));
  Q_UNUSED(executorName);
}

void TestExecutors::local() {
  std::string error;
  auto e = makeExecutor("local", {}, error);
  QVERIFY(e);
  QElapsedTimer t;
  t.start();
  ExecResult res = e->run(request());
  qInfo("local round trip: %lld ms", static_cast<long long>(t.elapsed()));
  checkRecord(res, "local");
}

void TestExecutors::sshRoundTrip() {
  if (!m_sshUp)
    QSKIP(qPrintable("sshd cannot start here: " + m_sshSkip));
  ExecutorOptions o = sshOptions();
  std::string error;
  auto e = makeExecutor("ssh://cake-local", o, error);
  QVERIFY2(e, error.c_str());
  QElapsedTimer t;
  t.start();
  ExecResult res = e->run(request());
  qInfo("ssh round trip: %lld ms", static_cast<long long>(t.elapsed()));
  checkRecord(res, "ssh://cake-local");
  // The remote work directory is gone, and a runner pid was recorded there.
  QVERIFY(res.jobId.rfind(m_tmp.path().toStdString() + "/remote/cake-run.", 0) == 0);
  QVERIFY(!std::filesystem::exists(res.jobId));
  QVERIFY(!res.remotePid.empty());
}

void TestExecutors::sshTimeout() {
  if (!m_sshUp)
    QSKIP(qPrintable("sshd cannot start here: " + m_sshSkip));
  ExecutorOptions o = sshOptions();
  std::string error;
  auto e = makeExecutor("ssh://cake-local", o, error);
  ExecRequest req = request(3);
  req.runnerArgs = {"--delay", "60"};
  QElapsedTimer t;
  t.start();
  ExecResult res = e->run(req);
  qint64 ms = t.elapsed();
  qInfo("ssh timeout after %lld ms", static_cast<long long>(ms));
  QVERIFY(res.timedOut);
  QVERIFY(!res.record);
  QVERIFY2(res.error.find("timeout") != std::string::npos, res.error.c_str());
  QVERIFY2(ms < 20000, qPrintable(QString::number(ms)));
  // The remote runner (on this host) was killed by pid, not left sleeping.
  QVERIFY(!res.remotePid.empty());
  QVERIFY2(!alive(res.remotePid), res.remotePid.c_str());
  QVERIFY(!std::filesystem::exists(res.jobId));
}

void TestExecutors::sshCancel() {
  if (!m_sshUp)
    QSKIP(qPrintable("sshd cannot start here: " + m_sshSkip));
  ExecutorOptions o = sshOptions();
  std::string error;
  auto e = makeExecutor("ssh://cake-local", o, error);
  ExecRequest req = request(120);
  req.runnerArgs = {"--delay", "60"};
  QElapsedTimer t;
  t.start();
  ExecResult res = runCancelledAfter(*e, req, 2500);
  QVERIFY(res.cancelled);
  QVERIFY(!res.timedOut);
  QVERIFY(t.elapsed() < 20000);
  QVERIFY(!res.remotePid.empty());
  QVERIFY2(!alive(res.remotePid), res.remotePid.c_str());
}

void TestExecutors::sshUnreachable() {
  if (!m_sshUp)
    QSKIP(qPrintable("sshd cannot start here: " + m_sshSkip));
  ExecutorOptions o = sshOptions();
  o.sshOptions = {"ConnectTimeout=3"};
  std::string error;
  // Port 1 on localhost: refused at once. The error says where.
  auto e = makeExecutor("ssh://127.0.0.1:1", o, error);
  ExecResult res = e->run(request(30));
  QVERIFY(!res.record);
  QVERIFY2(res.error.find("ssh 127.0.0.1") == 0, res.error.c_str());
  RunRecord r = failureRecord(m_bundle, e->name(), "executor-failed", res.error);
  QCOMPARE(r.kernel, m_kernel);
  QCOMPARE(exitCodeFor(r), int(kExitExecutor));
}

void TestExecutors::slurmRoundTrip() {
  if (!m_slurmUp)
    QSKIP(qPrintable("Slurm cannot start here: " + m_slurmSkip));
  ExecutorOptions o = slurmOptions();
  std::string error;
  auto e = makeExecutor("slurm:debug", o, error);
  QVERIFY2(e, error.c_str());
  QElapsedTimer t;
  t.start();
  ExecResult res = e->run(request());
  qInfo("slurm round trip: %lld ms (job %s)", static_cast<long long>(t.elapsed()),
        res.jobId.c_str());
  checkRecord(res, "slurm:debug");
  QVERIFY(!res.jobId.empty());
  // The work directory in the shared folder is removed.
  QVERIFY(std::filesystem::is_empty(o.sharedDir));
}

void TestExecutors::slurmTimeout() {
  if (!m_slurmUp)
    QSKIP(qPrintable("Slurm cannot start here: " + m_slurmSkip));
  ExecutorOptions o = slurmOptions();
  o.keepFiles = true; // to find the job's runner by its bundle path below
  std::string error;
  auto e = makeExecutor("slurm", o, error);
  ExecRequest req = request(4);
  req.runnerArgs = {"--delay", "120"};
  QElapsedTimer t;
  t.start();
  ExecResult res = e->run(req);
  qint64 ms = t.elapsed();
  qInfo("slurm timeout + scancel after %lld ms (job %s)", static_cast<long long>(ms),
        res.jobId.c_str());
  QVERIFY(res.timedOut);
  QVERIFY2(res.error.find("scancel") != std::string::npos, res.error.c_str());
  QVERIFY(ms < 30000);
  // The job is no longer running, and no runner of it is left.
  QString left = slurmLeftovers(res, o.sharedDir);
  QVERIFY2(left.isEmpty(), qPrintable(left));
  std::error_code ec;
  std::filesystem::remove_all(o.sharedDir, ec);
}

void TestExecutors::slurmCancel() {
  if (!m_slurmUp)
    QSKIP(qPrintable("Slurm cannot start here: " + m_slurmSkip));
  ExecutorOptions o = slurmOptions();
  std::string error;
  auto e = makeExecutor("slurm", o, error);
  ExecRequest req = request(120);
  req.runnerArgs = {"--delay", "120"};
  ExecResult res = runCancelledAfter(*e, req, 3000);
  QVERIFY(res.cancelled);
  QVERIFY2(res.error.find("scancel") != std::string::npos, res.error.c_str());
  QString left = slurmLeftovers(res, o.sharedDir);
  QVERIFY2(left.isEmpty(), qPrintable(left));
}

void TestExecutors::slurmRequeue() {
  if (!m_slurmUp)
    QSKIP(qPrintable("Slurm cannot start here: " + m_slurmSkip));
  // A node failure while the job runs: the node is set DOWN (slurmctld kills the job and, as the
  // batch script asks for --requeue, puts it back in the queue), comes back (ReturnToService=2),
  // and the job runs again. Slurm holds a requeued job for about two minutes (its begin time);
  // the test releases it at once with `scontrol update StartTime=now`, as an administrator may.
  ExecutorOptions o = slurmOptions();
  std::string error;
  auto e = makeExecutor("slurm:debug", o, error);
  QVERIFY2(e, error.c_str());
  ExecRequest req = request(180);
  req.runnerArgs = {"--delay", "5"};
  req.jobName = "cake-run-requeue";
  ExecResult res;
  std::thread runner([&] { res = e->run(req); });
  auto jobState = [] {
    Script q = runScript("squeue", {"-h", "-n", "cake-run-requeue", "-t", "all", "-o", "%i %T"});
    return q.out.trimmed().split(' ');
  };
  QString node = runScript("sinfo", {"-h", "-o", "%N"}).out.trimmed();
  QStringList st;
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 30000 && (st = jobState()).value(1) != "RUNNING")
    QThread::msleep(100);
  bool sawRunning = st.value(1) == "RUNNING";
  QString id = st.value(0);
  // Well into the attempt (the runner waits 5 s), as a node failure would be.
  QThread::msleep(1500);
  Script down = runScript("scontrol",
                          {"update", "nodename=" + node, "state=down", "reason=cake-requeue-test"});
  t.restart();
  while (t.elapsed() < 30000 && (st = jobState()).value(1) != "PENDING")
    QThread::msleep(100);
  bool requeued = st.value(1) == "PENDING";
  // The node may already be back (ReturnToService=2); resume it otherwise.
  runScript("scontrol", {"update", "nodename=" + node, "state=resume"});
  runScript("scontrol", {"update", "jobid=" + id, "starttime=now"});
  runner.join();
  // The node is idle again for the tests that follow.
  t.restart();
  while (t.elapsed() < 30000 &&
         runScript("sinfo", {"-h", "-o", "%T"}).out.trimmed() != QLatin1String("idle"))
    QThread::msleep(200);
  QVERIFY2(sawRunning, qPrintable(st.join(' ')));
  QVERIFY2(down.code == 0, qPrintable(down.err));
  QVERIFY2(requeued, qPrintable(st.join(' ')));
  QCOMPARE(QString::fromStdString(res.jobId), id);
  checkRecord(res, "slurm:debug");
  QCOMPARE(res.requeues, 1);
  QVERIFY2(res.log.find("Slurm job " + res.jobId + " was requeued") != std::string::npos,
           res.log.c_str());
  QVERIFY(processesWith(o.sharedDir + "/run-").empty());
}

void TestExecutors::cliThroughSsh() {
  if (!m_sshUp)
    QSKIP(qPrintable("sshd cannot start here: " + m_sshSkip));
  // `cake run` end to end: bundle built, sent over ssh, record printed as JSON, exit code the
  // runner's (3: no driver on this machine; the CPU device's code once it exists).
  QElapsedTimer t;
  t.start();
  Script s = runScript(
      QString::fromStdString(kBin + "/cake"),
      {"run", QString::fromStdString(kSource + "/corpus/bias_gelu/bias_gelu.cake"), "--executor",
       "ssh://cake-local", "--ssh-config", QString::fromStdString(m_sshConfig), "--remote-tmp",
       QString::fromStdString(sshOptions().remoteTmp), "--format", "json", "--timeout", "60"});
  qInfo("cake run through ssh: %lld ms", static_cast<long long>(t.elapsed()));
  std::string error;
  auto r = parseRecord(s.out.toStdString(), error);
  QVERIFY2(r, qPrintable(s.out + s.err));
  QCOMPARE(r->kernel, std::string("bias_gelu"));
  QVERIFY2(r->executor.rfind("ssh://cake-local (" + sshOptions().remoteTmp + "/cake-run.", 0) == 0,
           r->executor.c_str());
  QCOMPARE(s.code, exitCodeFor(*r));
}

QTEST_GUILESS_MAIN(TestExecutors)
#include "tst_executors.moc"
