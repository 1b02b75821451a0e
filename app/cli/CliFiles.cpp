// Checked output for `cake`: files written with every error reported, in-place rewrites through
// symlinks with the mode kept, strict numeric options, and the final flush of standard output.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace cake::cli {

namespace {

/// Writes all of `content` to `fd`; short writes are resumed, EINTR retried.
bool writeAll(int fd, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string lastError() { return std::strerror(errno); }

} // namespace

bool writeFile(const std::string& path, const std::string& content, std::string& error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + lastError();
    return false;
  }
  bool ok = writeAll(fd, content);
  std::string why = ok ? std::string() : lastError();
  // close() reports deferred errors (NFS, quota); a failed write is not a written file.
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = lastError();
  }
  if (!ok)
    error = "cannot write '" + path + "': " + why;
  return ok;
}

bool replaceFile(const std::string& path, const std::string& content, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Rewrite the file a symlink points to, not the link: renaming over the link would turn it
  // into a regular file and leave its target unformatted.
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    target = fs::canonical(target, ec);
    if (ec) {
      error = "cannot resolve the symlink '" + path + "': " + ec.message();
      return false;
    }
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    error = "cannot rewrite '" + path + "': " + lastError();
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot rewrite '" + path + "': not a regular file";
    return false;
  }
  // The temporary file lives next to the target so the rename stays on one file system and is
  // atomic; a unique name keeps two concurrent runs from sharing it.
  std::string tmp = target.string() + ".cake-fmt.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    error = "cannot create a temporary file next to '" + target.string() + "': " + lastError();
    return false;
  }
  auto fail = [&](const std::string& what) {
    error = what + ": " + lastError();
    ::unlink(tmp.c_str());
    return false;
  };
  // mkstemp creates 0600; the rewritten file keeps the permissions the user gave it.
  if (::fchmod(fd, st.st_mode & 07777) != 0) {
    ::close(fd);
    return fail("cannot set the mode of '" + tmp + "'");
  }
  if (!writeAll(fd, content) || ::fsync(fd) != 0) {
    ::close(fd);
    return fail("cannot write '" + tmp + "'");
  }
  if (::close(fd) != 0)
    return fail("cannot write '" + tmp + "'");
  if (::rename(tmp.c_str(), target.c_str()) != 0)
    return fail("cannot replace '" + target.string() + "'");
  return true;
}

std::optional<double> parseReal(const std::string& text) {
  if (text.empty())
    return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::optional<long long> parseInteger(const std::string& text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

bool realOption(const Args& a, const std::string& key, double lo, double hi, double& out,
                std::string& error) {
  if (!a.options.count(key))
    return true;
  std::string text = a.get(key);
  auto v = parseReal(text);
  if (!v || *v < lo || *v > hi) {
    char range[96];
    std::snprintf(range, sizeof range, "%g..%g", lo, hi);
    error = key + " takes a finite number in " + range + " (got '" + text + "')";
    return false;
  }
  out = *v;
  return true;
}

bool integerOption(const Args& a, const std::string& key, long long lo, long long hi,
                   long long& out, std::string& error) {
  if (!a.options.count(key))
    return true;
  std::string text = a.get(key);
  auto v = parseInteger(text);
  if (!v || *v < lo || *v > hi) {
    error = key + " takes an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
            " (got '" + text + "')";
    return false;
  }
  out = *v;
  return true;
}

int finishStdout(int exitCode) {
  // Standard output is buffered: a full disk or a closed descriptor only shows at the flush.
  // Losing output must not look like success.
  // std::cout shares stdout's buffer (synced with stdio), so one fflush drains both and its
  // errno names the cause; a failure earlier in the run left the error flag set.
  errno = 0;
  bool flushed = std::fflush(stdout) == 0;
  int err = errno;
  std::cout.flush();
  if (flushed && !std::ferror(stdout) && !std::cout.fail())
    return exitCode;
  std::fprintf(stderr, "cake: error: cannot write to standard output%s%s\n", err ? ": " : "",
               err ? std::strerror(err) : "");
  return 2;
}

} // namespace cake::cli
