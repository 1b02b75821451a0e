// Small helpers the run library uses to read JSON documents it wrote (records, bundles): parse
// with a located error string, and typed optional member access where null means "not filled".
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/Json.h"

#include <optional>
#include <string>

namespace cake::run::detail {

/// Parses `text`; on error, nullopt and `error` = "NAME:LINE:COL: message".
std::optional<json::Value> parseJson(const std::string& text, const std::string& name,
                                     std::string& error);

/// A member's string value; nullopt when absent, null or not a string.
std::optional<std::string> str(const json::Value& obj, const char* key);
/// A member's number; nullopt when absent, null or not a number.
std::optional<double> num(const json::Value& obj, const char* key);
/// A member's integer (a number literal that is an integer); nullopt otherwise.
std::optional<std::int64_t> integer(const json::Value& obj, const char* key);
std::optional<bool> boolean(const json::Value& obj, const char* key);

} // namespace cake::run::detail
