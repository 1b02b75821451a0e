// Small string helpers: edit distance and "did you mean" suggestions.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

/// Levenshtein distance, capped: returns `cap + 1` as soon as the distance exceeds `cap`.
std::size_t editDistance(std::string_view a, std::string_view b, std::size_t cap = 64);

/// The candidate closest to `word` within a distance that scales with its length, if any.
std::optional<std::string> closestMatch(std::string_view word,
                                        std::span<const std::string> candidates);

/// Joins with a separator.
std::string join(std::span<const std::string> parts, std::string_view separator);

/// Reads a whole file; nullopt (with `error` set) when it cannot be read or exceeds `maxBytes`.
std::optional<std::string> readFile(const std::string& path, std::string& error,
                                    std::size_t maxBytes = 256u << 20);

} // namespace cake
