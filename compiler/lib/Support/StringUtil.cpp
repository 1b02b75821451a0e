// String helpers shared by the compiler libraries.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace cake {

std::size_t editDistance(std::string_view a, std::string_view b, std::size_t cap) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions
  // (the most common typo: "nmae" for "name") each cost 1.
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap)
    return cap + 1;
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t rowMin = cur[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      rowMin = std::min(rowMin, cur[j]);
    }
    if (rowMin > cap)
      return cap + 1;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closestMatch(std::string_view word,
                                        std::span<const std::string> candidates) {
  std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t bestDistance = limit + 1, bestPrefix = 0;
  for (const std::string& c : candidates) {
    std::size_t d = editDistance(word, c, limit);
    // A one-letter name is "close" to every other one-letter name: no suggestion.
    if (d > limit || d >= word.size())
      continue;
    // Ties go to the candidate sharing the longer prefix ("sm_90" → "sm_90a", not "sm_80").
    std::size_t prefix = 0;
    while (prefix < word.size() && prefix < c.size() && word[prefix] == c[prefix])
      ++prefix;
    if (d < bestDistance || (d == bestDistance && prefix > bestPrefix)) {
      bestDistance = d;
      bestPrefix = prefix;
      best = c;
    }
  }
  return best;
}

std::string join(std::span<const std::string> parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i)
      out += separator;
    out += parts[i];
  }
  return out;
}

std::optional<std::string> readFile(const std::string& path, std::string& error,
                                    std::size_t maxBytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "is a directory";
    return std::nullopt;
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > maxBytes) {
    error = "file is " + std::to_string(st.st_size) + " bytes; the limit is " +
            std::to_string(maxBytes);
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string content;
  // A regular file's size is known: one allocation of the exact size instead of doubling
  // (a 50 MB kernel would otherwise hold a 64 MB buffer for the whole run).
  if (S_ISREG(st.st_mode))
    content.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    content.append(buf, static_cast<std::size_t>(in.gcount()));
    if (content.size() > maxBytes) {
      error = "input exceeds " + std::to_string(maxBytes) + " bytes";
      return std::nullopt;
    }
  }
  return content;
}

} // namespace cake
