#include "validate_clock.hpp"

#include <dlfcn.h>

namespace roofcast::validation {
namespace {

// The few NVML declarations used (nvml.h, stable C ABI): nvmlReturn_t is an int enum with
// NVML_SUCCESS = 0; nvmlDevice_t is an opaque pointer; NVML_CLOCK_SM = 1.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

SmClock::SmClock(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    source_ = std::string("NVML unavailable (dlopen libnvidia-ml.so.1: ") +
              (why != nullptr ? why : "unknown error") + ")";
    return;
  }
  auto init = symbol<int (*)()>(library_, "nvmlInit_v2");
  auto by_bus = symbol<int (*)(const char*, void**)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  get_clock_ = symbol<int (*)(void*, int, unsigned*)>(library_, "nvmlDeviceGetClockInfo");
  driver_version_ = symbol<int (*)(char*, unsigned)>(library_, "nvmlSystemGetDriverVersion");
  shutdown_ = symbol<int (*)()>(library_, "nvmlShutdown");
  if (init == nullptr || by_bus == nullptr || get_clock_ == nullptr || shutdown_ == nullptr) {
    source_ = "NVML unavailable (libnvidia-ml.so.1 lacks a needed function)";
    return;
  }
  if (const int status = init(); status != kNvmlSuccess) {
    source_ = "NVML unavailable (nvmlInit_v2 returned " + std::to_string(status) + ")";
    shutdown_ = nullptr;
    return;
  }
  void* device = nullptr;
  if (const int status = by_bus(pci_bus_id.c_str(), &device); status != kNvmlSuccess) {
    source_ = "NVML unavailable (no NVML device at PCI bus id '" + pci_bus_id + "', status " +
              std::to_string(status) + ")";
    return;
  }
  device_ = device;
  source_ = "nvml";
}

SmClock::~SmClock() {
  if (shutdown_ != nullptr) shutdown_();
  if (library_ != nullptr) dlclose(library_);
}

std::optional<double> SmClock::current_MHz() const {
  if (device_ == nullptr) return std::nullopt;
  unsigned mhz = 0;
  if (get_clock_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return std::nullopt;
  return static_cast<double>(mhz);
}

std::optional<std::string> SmClock::driver_version() const {
  if (device_ == nullptr || driver_version_ == nullptr) return std::nullopt;
  char text[96] = {0};
  if (driver_version_(text, sizeof text) != kNvmlSuccess) return std::nullopt;
  return std::string(text);
}

}  // namespace roofcast::validation
