// Export of the verifier's analysis data: the event trace, barrier and resource summaries as
// JSON, and the trace as Chrome/Perfetto trace-event JSON (one track per warp role, flow arrows
// from each completed barrier phase to the waits it releases).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Driver/Compiler.h"
#include "cake/Support/Json.h"

#include <string>

namespace cake::driver {

/// {"kernel", "target", "roles", "ctas", "tiles_per_cta", "tiles_analysed", "deadlock",
///  "events": [...], "barriers": [...], "resources": {...}}; at most `maxEvents` events.
void writeAnalysisJson(json::Writer& w, const CheckResult& result, std::size_t maxEvents);

/// Chrome trace-event format (loads in Perfetto and chrome://tracing).
std::string toChromeTrace(const CheckResult& result, std::size_t maxEvents);

} // namespace cake::driver
