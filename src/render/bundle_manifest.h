// The bundle's own documents (issue 37), written: manifest.json (what the
// archive holds, how each collector ended, what was redacted or cut; never
// a redacted value; read back by report/bundle_manifest_read.h), nvml.json (the NVML answers of the
// collection, the report's "nvml" and "gpus" keys, which report_from_json reads back), and the line
// that names the archive written.
#pragma once

#include <string>
#include <vector>

#include "model/bundle.h"
#include "model/report.h"

namespace gt {

/// The manifest as JSON ("schema": "gpu-triage/bundle", version 1).
std::string render_bundle_manifest(const BundleManifest& m);

/// The snapshot's NVML state and GPUs as JSON, with its origin and time.
std::string render_nvml_answers(const Report& report);

/// "gpu-triage bundle: wrote FILE (N members, SIZE)" and each collector that
/// did not finish, one line each (the file name escaped for the terminal).
std::string render_bundle_written(const std::string& file, uint64_t size_bytes,
                                  const BundleManifest& m);

}  // namespace gt
