// The SM clock and the driver version through NVML, loaded at run time with
// dlopen("libnvidia-ml.so.1") so the harness needs no NVML at build time and still runs where
// the library is missing (it then says so and falls back to the device's maximum clock).
#pragma once

#include <optional>
#include <string>

namespace roofcast::validation {

class SmClock {
 public:
  /// Opens NVML for the device with this PCI bus id ("0000:18:00.0"). Never throws.
  explicit SmClock(const std::string& pci_bus_id);
  ~SmClock();
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  /// The current SM clock, MHz; empty when NVML is not usable.
  std::optional<double> current_MHz() const;
  /// The driver's version string ("580.159.04"); empty when NVML is not usable.
  std::optional<std::string> driver_version() const;
  /// "nvml", or why NVML could not be used.
  const std::string& source() const { return source_; }
  bool usable() const { return device_ != nullptr; }

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  std::string source_;
  int (*get_clock_)(void* device, int type, unsigned* mhz) = nullptr;
  int (*driver_version_)(char* text, unsigned length) = nullptr;
  int (*shutdown_)() = nullptr;
};

}  // namespace roofcast::validation
