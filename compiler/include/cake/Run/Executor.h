// Executors: where a run bundle runs. Local (spawn `cake-run`), SSH (system ssh/scp: copy the
// bundle to a work directory on the host, run `cake-run` there, fetch the record) and Slurm
// (sbatch --parsable with a generated batch script in a shared directory, squeue polling,
// scancel on timeout or cancel). Each run has a timeout and can be cancelled from another
// thread; the remote process is killed in both cases.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Run/Record.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake::run {

/// A child process run to completion, with its output, under a timeout and a cancel flag.
struct ProcessResult {
  int exitCode = -1; ///< -1 when it did not exit normally
  int signal = 0;    ///< the signal that ended it, if any
  bool timedOut = false;
  bool cancelled = false;
  std::string out, err;
  std::string spawnError; ///< set when it could not be started
  bool ok() const { return spawnError.empty() && exitCode == 0; }
};

/// Runs argv[0] (searched in PATH) in its own process group; on timeout or cancel the whole
/// group gets SIGTERM, then SIGKILL after `graceSeconds`. Output is capped at 16 MiB per stream.
ProcessResult runProcess(const std::vector<std::string>& argv, double timeoutSeconds,
                         const std::atomic<bool>* cancel = nullptr, double graceSeconds = 2);

/// Quotes `text` for a POSIX shell (single quotes).
std::string shellQuote(const std::string& text);

struct ExecRequest {
  std::string bundleDir; ///< the bundle on this machine
  std::string runner;    ///< path of cake-run on the executing host
  std::vector<std::string> runnerArgs;
  double timeoutSeconds = 600; ///< whole run, queue wait included
  const std::atomic<bool>* cancel = nullptr;
  bool gpu = true; ///< ask the scheduler for a GPU (Slurm: --gres=gpu:1)
  std::string jobName = "cake-run";
};

struct ExecResult {
  std::optional<RunRecord> record; ///< the runner's record, when one came back
  std::string recordText;          ///< as fetched
  int runnerExit = -1;             ///< the runner's exit code, when known
  bool timedOut = false;
  bool cancelled = false;
  std::string error;     ///< why the executor failed (no record), empty otherwise
  std::string log;       ///< the runner's standard error, ssh/scp messages, the Slurm output file
  std::string jobId;     ///< Slurm job id; ssh: the remote work directory
  std::string remotePid; ///< ssh: the runner's pid on the host (for tests of cancel)
  /// Slurm: how often the job went back to the queue after it had started (a node failure, an
  /// administrator's `scontrol requeue`); the record is the last attempt's.
  int requeues = 0;
};

struct ExecutorOptions {
  std::string sshConfig;               ///< ssh -F FILE (also for scp)
  std::vector<std::string> sshOptions; ///< extra -o options ("BatchMode=yes", ...)
  std::string remoteTmp = "/tmp";      ///< where the SSH executor makes its work directory
  std::string sharedDir;               ///< Slurm: a directory the compute nodes see
  double pollSeconds = 0.5;            ///< Slurm: squeue interval
  bool keepFiles = false;              ///< keep remote / shared work directories
};

class Executor {
public:
  virtual ~Executor() = default;
  /// "local", "ssh://HOST", "slurm" or "slurm:PARTITION".
  virtual std::string name() const = 0;
  virtual ExecResult run(const ExecRequest& request) = 0;
};

/// The executor for `spec` ("local", "ssh://[USER@]HOST[:PORT]", "slurm", "slurm:PARTITION");
/// null with `error` for a malformed spec.
std::unique_ptr<Executor> makeExecutor(const std::string& spec, const ExecutorOptions& options,
                                       std::string& error);

/// A record for a run that produced none (executor failure, timeout, cancel), so that every
/// `cake run` prints a record: kernel and target from the bundle's manifest when readable.
RunRecord failureRecord(const std::string& bundleDir, const std::string& executor,
                        const std::string& code, const std::string& message);

} // namespace cake::run
