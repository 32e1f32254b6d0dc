// Test helpers for the NVML collector tests: a private copy of the mock
// libnvidia-ml (tests/mock_nvml) per test, loaded with a scenario string.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sources/nvml/nvml_collector.h"

namespace gt::testing_nvml {

class MockNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gt-nvml-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `scenario` and loads a private copy of the mock `variant`.
  std::shared_ptr<NvmlLibrary> load(const std::string& scenario, const std::string& variant = "") {
    namespace fs = std::filesystem;
    std::string scen = dir_ + "/scenario.json";
    std::ofstream(scen) << scenario;
    setenv("MOCK_NVML_SCENARIO", scen.c_str(), 1);
    fs::path src = fs::path(GT_MOCK_NVML_DIR) / variant / "libnvidia-ml.so.1";
    fs::path copy = fs::path(dir_) / ("libnvidia-ml.so." + std::to_string(++copies_));
    fs::copy_file(src, copy);
    Result<std::shared_ptr<NvmlLibrary>> lib = NvmlLibrary::open(copy.string());
    EXPECT_TRUE(lib.ok()) << (lib.ok() ? "" : lib.error().message);
    return lib.ok() ? *lib : nullptr;
  }

  /// Loads `scenario` and collects with `window_ms` (timeout 3 s).
  NodeSnapshot collect(const std::string& scenario, int window_ms = 0,
                       const std::string& variant = "") {
    NodeSnapshot snap;
    auto lib = load(scenario, variant);
    if (!lib) return snap;
    missing_ = lib->missing_optional();
    NvmlCollectOptions o;
    o.sample_window = std::chrono::milliseconds(window_ms);
    o.timeout = std::chrono::milliseconds(3000);
    collect_nvml(lib, o, snap);
    return snap;
  }

  bool missing(const std::string& symbol) const {
    return std::find(missing_.begin(), missing_.end(), symbol) != missing_.end();
  }

  std::string dir_;
  int copies_ = 0;
  std::vector<std::string> missing_;
};

/// A minimal H100-like device; `extra` is spliced in as more keys
/// (", \"key\": value").
inline std::string bare_device(const std::string& extra = "") {
  return R"({"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-x",
             "pci": {"bus_id": "00000000:19:00.0", "device_id": "0x233010DE"},
             "temperature_c": 41, "utilization": {"gpu": [5]},
             "clock_event_reasons": "0x1")" +
         extra + "}";
}

/// A scenario of `devices` (JSON objects joined by commas) on `driver`.
inline std::string scenario_on(const std::string& devices,
                               const std::string& driver = "580.65.06") {
  return R"({"driver_version": ")" + driver + R"(", "nvml_version": "13.)" + driver +
         R"(", "cuda_driver_version": 13000, "devices": [)" + devices + "]}";
}

}  // namespace gt::testing_nvml
