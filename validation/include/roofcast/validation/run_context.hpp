// Small facts every measurement's context block records, shared by the validation programs.
#pragma once

#include <string>

namespace roofcast::validation {

/// Now, UTC, ISO 8601: "2026-11-29T15:04:05Z".
std::string utc_now();

/// A CUDA version number as text: 13000 -> "13.0" (major = v / 1000, minor = v % 1000 / 10).
std::string cuda_version_text(int version);

/// This machine's host name, "unknown" when it cannot be read.
std::string host_name();

}  // namespace roofcast::validation
