// Files embedded into the library at build time (see cmake/embed_files.cmake).
#pragma once

#include <cstddef>

namespace roofcast::detail {

struct EmbeddedFile {
  const char* name;
  const char* bytes;
  std::size_t size;
};

extern const EmbeddedFile kEmbeddedSpecFiles[];
extern const std::size_t kEmbeddedSpecFileCount;
extern const EmbeddedFile kEmbeddedCalibrationFiles[];  // data/calibration/*.json
extern const std::size_t kEmbeddedCalibrationFileCount;

}  // namespace roofcast::detail
