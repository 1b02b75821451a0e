// The local, SSH and Slurm executors (docs/runs.md, "Executors").
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Executor.h"

#include "RunJson.h"
#include "cake/Support/StringUtil.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace cake::run {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.pop_back();
  std::size_t b = s.find_first_not_of(" \n\r\t");
  return b == std::string::npos ? std::string() : s.substr(b);
}

/// Reads the record file the runner wrote into `result`.
void takeRecord(const std::string& path, ExecResult& result) {
  std::string err;
  auto text = readFile(path, err, 64u << 20);
  if (!text) {
    if (result.error.empty())
      result.error = "the runner wrote no record (" + err + ")";
    return;
  }
  result.recordText = *text;
  std::string perr;
  result.record = parseRecord(*text, perr);
  if (!result.record && result.error.empty())
    result.error = "the runner's record is unreadable: " + perr;
}

std::vector<std::string> runnerCommand(const ExecRequest& req, const std::string& bundle,
                                       const std::string& recordPath) {
  std::vector<std::string> cmd = {req.runner, bundle, "-o", recordPath};
  cmd.insert(cmd.end(), req.runnerArgs.begin(), req.runnerArgs.end());
  return cmd;
}

std::string joinQuoted(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv)
    s += (s.empty() ? "" : " ") + shellQuote(a);
  return s;
}

// ------------------------------------------------------------------ local

class LocalExecutor final : public Executor {
public:
  std::string name() const override { return "local"; }
  ExecResult run(const ExecRequest& req) override {
    ExecResult res;
    std::string recordPath = (fs::path(req.bundleDir) / "record.json").string();
    std::error_code ec;
    fs::remove(recordPath, ec);
    ProcessResult p =
        runProcess(runnerCommand(req, req.bundleDir, recordPath), req.timeoutSeconds, req.cancel);
    res.log = p.err;
    res.timedOut = p.timedOut;
    res.cancelled = p.cancelled;
    if (!p.spawnError.empty()) {
      res.error = p.spawnError;
      return res;
    }
    if (p.timedOut || p.cancelled) {
      res.error = p.timedOut ? "the runner did not finish within the timeout; it was killed"
                             : "cancelled; the runner was killed";
      return res;
    }
    res.runnerExit = p.exitCode;
    takeRecord(recordPath, res);
    return res;
  }
};

// ------------------------------------------------------------------ ssh

class SshExecutor final : public Executor {
public:
  SshExecutor(std::string host, std::string port, ExecutorOptions options)
      : m_host(std::move(host)), m_port(std::move(port)), m_opt(std::move(options)) {}
  std::string name() const override {
    return "ssh://" + m_host + (m_port.empty() ? "" : ":" + m_port);
  }

  ExecResult run(const ExecRequest& req) override {
    ExecResult res;
    auto start = Clock::now();
    auto left = [&] { return std::max(1.0, req.timeoutSeconds - secondsSince(start)); };
    auto failed = [&](const std::string& what, const ProcessResult& p) {
      res.timedOut = p.timedOut;
      res.cancelled = p.cancelled;
      res.error = what + ": " +
                  (!p.spawnError.empty() ? p.spawnError
                   : p.timedOut          ? std::string("timed out")
                   : p.cancelled         ? std::string("cancelled")
                   : trim(p.err).empty() ? "exit " + std::to_string(p.exitCode)
                                         : trim(p.err));
      res.log += p.err;
      return res;
    };
    // 1. A private work directory on the host.
    ProcessResult mk =
        runProcess(ssh({"mktemp -d " + shellQuote(m_opt.remoteTmp + "/cake-run.XXXXXXXX")}), left(),
                   req.cancel);
    if (!mk.ok())
      return failed("ssh " + m_host + ": cannot make a work directory", mk);
    std::string dir = trim(mk.out);
    if (dir.empty() || dir.find('\n') != std::string::npos)
      return failed("ssh " + m_host + ": mktemp printed no directory", mk);
    res.jobId = dir;
    std::string bundle = dir + "/bundle";
    // 2. Copy the bundle.
    ProcessResult cp =
        runProcess(scp({"-r", "-q", req.bundleDir, target(bundle)}), left(), req.cancel);
    if (!cp.ok()) {
      cleanup(dir);
      return failed("scp to " + m_host, cp);
    }
    // 3. Run cake-run there. `exec` keeps the shell's pid, recorded for cancel.
    std::string recordPath = dir + "/record.json";
    std::string remote = "echo $$ > " + shellQuote(dir + "/pid") + " && exec " +
                         joinQuoted(runnerCommand(req, bundle, recordPath));
    ProcessResult run = runProcess(ssh({remote}), left(), req.cancel);
    res.log += run.err;
    res.remotePid = readRemote(dir + "/pid");
    if (run.timedOut || run.cancelled) {
      res.timedOut = run.timedOut;
      res.cancelled = run.cancelled;
      // Killing our ssh does not stop the remote process (no terminal): kill it by pid.
      killRemote(dir);
      res.error = run.timedOut ? "the run on " + m_host +
                                     " did not finish within the timeout; the remote runner "
                                     "was killed"
                               : "cancelled; the remote runner on " + m_host + " was killed";
      cleanup(dir);
      return res;
    }
    if (!run.spawnError.empty() || run.exitCode == 255) {
      cleanup(dir);
      return failed("ssh " + m_host, run);
    }
    res.runnerExit = run.exitCode;
    // 4. Fetch the record.
    std::string local = (fs::path(req.bundleDir) / "record.json").string();
    std::error_code ec;
    fs::remove(local, ec);
    ProcessResult back = runProcess(scp({"-q", target(recordPath), local}), left(), req.cancel);
    if (!back.ok()) {
      res.log += back.err;
      res.error = "no record came back from " + m_host + " (runner exit " +
                  std::to_string(run.exitCode) + "): " + trim(back.err);
      cleanup(dir);
      return res;
    }
    takeRecord(local, res);
    cleanup(dir);
    return res;
  }

private:
  std::vector<std::string> common(const std::string& program, const std::string& portFlag) {
    std::vector<std::string> v = {program};
    if (!m_opt.sshConfig.empty())
      v.insert(v.end(), {"-F", m_opt.sshConfig});
    if (!m_port.empty())
      v.insert(v.end(), {portFlag, m_port});
    v.insert(v.end(), {"-o", "BatchMode=yes"});
    for (const std::string& o : m_opt.sshOptions)
      v.insert(v.end(), {"-o", o});
    return v;
  }
  std::vector<std::string> ssh(const std::vector<std::string>& command) {
    std::vector<std::string> v = common("ssh", "-p");
    v.push_back("--");
    v.push_back(m_host);
    v.insert(v.end(), command.begin(), command.end());
    return v;
  }
  std::vector<std::string> scp(const std::vector<std::string>& args) {
    std::vector<std::string> v = common("scp", "-P");
    v.insert(v.end(), args.begin(), args.end());
    return v;
  }
  std::string target(const std::string& path) const { return m_host + ":" + path; }
  std::string readRemote(const std::string& path) {
    ProcessResult p = runProcess(ssh({"cat " + shellQuote(path) + " 2>/dev/null"}), 30);
    return trim(p.out);
  }
  void killRemote(const std::string& dir) {
    std::string pidFile = shellQuote(dir + "/pid");
    runProcess(ssh({"p=$(cat " + pidFile +
                    " 2>/dev/null) && [ -n \"$p\" ] && { kill -TERM \"$p\" 2>/dev/null; "
                    "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "
                    "kill -0 \"$p\" 2>/dev/null || exit 0; sleep 0.1; done; "
                    "kill -KILL \"$p\" 2>/dev/null; }; true"}),
               30);
  }
  void cleanup(const std::string& dir) {
    if (!m_opt.keepFiles)
      runProcess(ssh({"rm -rf " + shellQuote(dir)}), 30);
  }

  std::string m_host, m_port;
  ExecutorOptions m_opt;
};

// ------------------------------------------------------------------ slurm

class SlurmExecutor final : public Executor {
public:
  SlurmExecutor(std::string partition, ExecutorOptions options)
      : m_partition(std::move(partition)), m_opt(std::move(options)) {}
  std::string name() const override {
    return m_partition.empty() ? "slurm" : "slurm:" + m_partition;
  }

  ExecResult run(const ExecRequest& req) override {
    ExecResult res;
    auto start = Clock::now();
    std::error_code ec;
    std::string shared = m_opt.sharedDir;
    if (shared.empty()) {
      const char* home = std::getenv("HOME");
      shared = std::string(home && *home ? home : "/tmp") + "/.cache/cake/slurm";
    }
    fs::create_directories(shared, ec);
    std::string tmpl = shared + "/run-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
      res.error = "cannot make a work directory in the shared directory '" + shared + "'";
      return res;
    }
    std::string dir = buf.data();
    std::string bundle = dir + "/bundle";
    fs::copy(req.bundleDir, bundle, fs::copy_options::recursive, ec);
    if (ec) {
      res.error = "cannot copy the bundle to '" + bundle + "': " + ec.message();
      return res;
    }
    std::string recordPath = dir + "/record.json";
    std::string exitPath = dir + "/exit";
    // The job's own time limit backs up our timeout (whole minutes, at least one).
    long minutes = std::max(1L, static_cast<long>(std::ceil(req.timeoutSeconds / 60.0)) + 1);
    std::string script = "#!/bin/sh\n"
                         "#SBATCH --job-name=" +
                         req.jobName +
                         "\n"
                         "#SBATCH --output=" +
                         dir +
                         "/slurm-%j.out\n"
                         "#SBATCH --time=" +
                         std::to_string(minutes) +
                         "\n"
                         "#SBATCH --ntasks=1\n"
                         "#SBATCH --requeue\n";
    if (req.gpu)
      script += "#SBATCH --gres=gpu:1\n";
    if (!m_partition.empty())
      script += "#SBATCH --partition=" + m_partition + "\n";
    // A requeued job starts again from the top: nothing an earlier attempt left may be taken
    // for this attempt's result.
    script += "rm -f " + shellQuote(recordPath) + " " + shellQuote(exitPath) + "\n";
    script += joinQuoted(runnerCommand(req, bundle, recordPath)) +
              "\n"
              "echo $? > " +
              shellQuote(exitPath) + "\n";
    std::string scriptPath = dir + "/job.sh";
    {
      std::ofstream f(scriptPath);
      f << script;
      if (!f) {
        res.error = "cannot write the batch script '" + scriptPath + "'";
        return res;
      }
    }
    ProcessResult sb = runProcess({"sbatch", "--parsable", scriptPath}, 60, req.cancel);
    if (!sb.ok()) {
      res.error = "sbatch: " + (!sb.spawnError.empty() ? sb.spawnError : trim(sb.err));
      res.log = sb.err;
      return res;
    }
    std::string id = trim(sb.out);
    if (auto semi = id.find(';'); semi != std::string::npos)
      id = id.substr(0, semi); // "id;cluster"
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      res.error = "sbatch printed no job id ('" + trim(sb.out) + "')";
      return res;
    }
    res.jobId = id;
    std::string outPath = dir + "/slurm-" + id + ".out";

    // Poll until the job leaves the running states. With accounting off, a finished job stays
    // in squeue for MinJobAge with its final state, then disappears: both mean finished.
    std::string state;
    bool started = false; // seen running since it was last queued
    while (true) {
      bool stop = false;
      if (req.cancel && req.cancel->load()) {
        res.cancelled = true;
        stop = true;
      } else if (secondsSince(start) > req.timeoutSeconds) {
        res.timedOut = true;
        stop = true;
      }
      if (stop) {
        runProcess({"scancel", id}, 30);
        // Wait for the job to end so that nothing of it runs on after we return.
        for (int i = 0; i < 100 && isActive(queryState(id)); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        res.error = res.timedOut
                        ? "Slurm job " + id + " did not finish within the timeout; scancel'ed"
                        : "cancelled; Slurm job " + id + " was scancel'ed";
        readLog(outPath, res);
        cleanup(dir);
        return res;
      }
      state = queryState(id);
      if (!isActive(state))
        break;
      // Back in the queue after it ran: Slurm requeued it (a node failure with --requeue, or
      // `scontrol requeue`). Keep waiting for the next attempt, within the same timeout.
      if (state == "RUNNING" || state == "COMPLETING") {
        started = true;
      } else if (started && (state == "PENDING" || state == "REQUEUED")) {
        started = false;
        ++res.requeues;
        res.log += "cake run: Slurm job " + id + " was requeued after it had started; waiting " +
                   "for attempt " + std::to_string(res.requeues + 1) + "\n";
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(m_opt.pollSeconds));
    }
    // Slurm's own count of restarts, while it still knows the job (MinJobAge): a requeue
    // between two polls is counted too.
    if (int restarts = queryRestarts(id); restarts > res.requeues) {
      res.requeues = restarts;
      res.log += "cake run: Slurm job " + id + " was requeued " + std::to_string(restarts) +
                 " time(s) (Slurm's restart count)\n";
    }
    readLog(outPath, res);
    std::string err;
    if (auto e = readFile(exitPath, err, 64))
      if (auto code = trim(*e);
          !code.empty() && code.find_first_not_of("0123456789") == std::string::npos)
        res.runnerExit = std::stoi(code);
    takeRecord(recordPath, res);
    if (!res.record && !state.empty())
      res.error = "Slurm job " + id + " ended in state " + state + " without a record";
    cleanup(dir);
    return res;
  }

private:
  static bool isActive(const std::string& state) {
    static const char* active[] = {"PENDING",     "CONFIGURING", "RUNNING",   "COMPLETING",
                                   "REQUEUED",    "RESIZING",    "SUSPENDED", "REQUEUE_HOLD",
                                   "REQUEUE_FED", "SIGNALING",   "STAGE_OUT"};
    for (const char* a : active)
      if (state == a)
        return true;
    return false;
  }
  /// The job's state, or "" once squeue no longer knows it.
  std::string queryState(const std::string& id) {
    ProcessResult q = runProcess({"squeue", "-h", "-j", id, "-t", "all", "-o", "%T"}, 30);
    return q.exitCode == 0 ? trim(q.out) : std::string();
  }
  /// "Restarts=N" of `scontrol show job -o ID` (0 when unknown).
  int queryRestarts(const std::string& id) {
    ProcessResult q = runProcess({"scontrol", "show", "job", "-o", id}, 30);
    auto at = q.out.find(" Restarts=");
    if (q.exitCode != 0 || at == std::string::npos)
      return 0;
    int n = 0;
    for (std::size_t i = at + 10;
         i < q.out.size() && n < 1000000 && std::isdigit(static_cast<unsigned char>(q.out[i])); ++i)
      n = n * 10 + (q.out[i] - '0');
    return n;
  }
  void readLog(const std::string& path, ExecResult& res) {
    std::string err;
    if (auto t = readFile(path, err, 1u << 20))
      res.log += *t;
  }
  void cleanup(const std::string& dir) {
    if (m_opt.keepFiles)
      return;
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  std::string m_partition;
  ExecutorOptions m_opt;
};

} // namespace

std::unique_ptr<Executor> makeExecutor(const std::string& spec, const ExecutorOptions& options,
                                       std::string& error) {
  if (spec == "local")
    return std::make_unique<LocalExecutor>();
  if (spec == "slurm")
    return std::make_unique<SlurmExecutor>("", options);
  if (spec.rfind("slurm:", 0) == 0) {
    std::string partition = spec.substr(6);
    if (partition.empty() || partition.find_first_of(" \t\n'\"\\$") != std::string::npos) {
      error = "executor '" + spec + "': the partition name is empty or has odd characters";
      return nullptr;
    }
    return std::make_unique<SlurmExecutor>(partition, options);
  }
  if (spec.rfind("ssh://", 0) == 0) {
    std::string rest = spec.substr(6);
    while (!rest.empty() && rest.back() == '/')
      rest.pop_back();
    std::string port;
    if (auto colon = rest.rfind(':'); colon != std::string::npos) {
      port = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
      if (port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos) {
        error = "executor '" + spec + "': the port must be a number";
        return nullptr;
      }
    }
    // A host that starts with '-' would be read by ssh as an option.
    if (rest.empty() || rest[0] == '-' ||
        rest.find_first_of(" \t\n/'\"\\$;&|") != std::string::npos) {
      error = "executor '" + spec + "': give ssh://[USER@]HOST[:PORT]";
      return nullptr;
    }
    return std::make_unique<SshExecutor>(rest, port, options);
  }
  error = "unknown executor '" + spec + "' (use local, ssh://HOST or slurm[:PARTITION])";
  return nullptr;
}

RunRecord failureRecord(const std::string& bundleDir, const std::string& executor,
                        const std::string& code, const std::string& message) {
  RunRecord r;
  r.executor = executor;
  std::string err;
  if (auto text = readFile((fs::path(bundleDir) / "manifest.json").string(), err, 1u << 20)) {
    if (auto m = detail::parseJson(*text, "manifest.json", err); m && m->isObject()) {
      r.kernel = detail::str(*m, "kernel").value_or("");
      r.target = detail::str(*m, "target").value_or("");
      r.deviceKind = detail::str(*m, "device").value_or("");
      r.scheduleHash = detail::str(*m, "schedule_hash").value_or("");
      r.compilerRevision = detail::str(*m, "compiler_revision").value_or("");
      r.workload = detail::str(*m, "workload_id").value_or("");
      r.predictedUs = detail::num(*m, "predicted_us");
    }
  }
  r.errors.push_back({code, message});
  return r;
}

} // namespace cake::run
