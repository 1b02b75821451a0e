// Child processes with a timeout and a cancel flag (the executors' only way to run tools).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Executor.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cake::run {

namespace {

constexpr std::size_t kMaxOutput = 16u << 20;

void closeFd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

} // namespace

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

ProcessResult runProcess(const std::vector<std::string>& argv, double timeoutSeconds,
                         const std::atomic<bool>* cancel, double graceSeconds) {
  ProcessResult r;
  if (argv.empty()) {
    r.spawnError = "no program";
    return r;
  }
  int outPipe[2], errPipe[2], execPipe[2];
  if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0 || ::pipe2(execPipe, O_CLOEXEC) != 0) {
    r.spawnError = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    r.spawnError = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    // Own process group, so that a timeout kills the tool and everything it started.
    ::setpgid(0, 0);
    ::dup2(outPipe[1], STDOUT_FILENO);
    ::dup2(errPipe[1], STDERR_FILENO);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      ::dup2(devnull, STDIN_FILENO);
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    ::close(execPipe[0]);
    ::signal(SIGPIPE, SIG_DFL);
    ::execvp(args[0], args.data());
    int e = errno;
    [[maybe_unused]] ssize_t n = ::write(execPipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  ::close(execPipe[1]);
  int execErr = 0;
  if (::read(execPipe[0], &execErr, sizeof execErr) == static_cast<ssize_t>(sizeof execErr)) {
    r.spawnError = "cannot run '" + argv[0] + "': " + std::strerror(execErr);
  }
  ::close(execPipe[0]);

  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto killAt = Clock::time_point::max();
  bool termSent = false, killSent = false;
  int fds[2] = {outPipe[0], errPipe[0]};
  std::string* sinks[2] = {&r.out, &r.err};
  int status = 0;
  bool exited = false;
  while (true) {
    pollfd p[2];
    int n = 0;
    int which[2];
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) {
        p[n] = {fds[i], POLLIN, 0};
        which[n++] = i;
      }
    if (n > 0) {
      int pr = ::poll(p, static_cast<nfds_t>(n), 50);
      if (pr > 0) {
        for (int k = 0; k < n; ++k) {
          if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
          char buf[65536];
          ssize_t got = ::read(p[k].fd, buf, sizeof buf);
          if (got > 0) {
            std::string& s = *sinks[which[k]];
            if (s.size() < kMaxOutput)
              s.append(buf, static_cast<std::size_t>(got));
          } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
            closeFd(fds[which[k]]);
          }
        }
      }
    } else {
      ::usleep(20000);
    }
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid)
        exited = true;
    }
    // Done when the child exited and its pipes are drained (a grandchild may hold them: stop
    // reading once the child is gone and the group was killed, or after the grace period).
    if (exited && fds[0] < 0 && fds[1] < 0)
      break;
    auto now = Clock::now();
    double elapsed = std::chrono::duration<double>(now - start).count();
    if (!termSent && !exited) {
      bool stop = false;
      if (cancel && cancel->load()) {
        r.cancelled = true;
        stop = true;
      } else if (elapsed > timeoutSeconds) {
        r.timedOut = true;
        stop = true;
      }
      if (stop) {
        ::kill(-pid, SIGTERM);
        termSent = true;
        killAt = now + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(graceSeconds));
      }
    }
    if (termSent && !killSent && now >= killAt) {
      ::kill(-pid, SIGKILL);
      killSent = true;
    }
    if (exited && (killSent || elapsed > timeoutSeconds + graceSeconds + 5)) {
      // A background grandchild keeps the pipes open: do not wait for it.
      ::kill(-pid, SIGKILL);
      break;
    }
  }
  closeFd(fds[0]);
  closeFd(fds[1]);
  if (!exited)
    ::waitpid(pid, &status, 0);
  if (WIFEXITED(status))
    r.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.signal = WTERMSIG(status);
  return r;
}

} // namespace cake::run
