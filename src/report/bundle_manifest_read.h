// A bundle's manifest.json read back (render/bundle_manifest.h writes it):
// the members it lists and those it says were cut, for a replay's checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/bundle.h"
#include "util/result.h"

namespace gt {

/// The members a manifest.json says were cut to fit the size cap, in its
/// order; none when nothing was cut or the manifest cannot be read.
std::vector<std::string> manifest_cut_members(std::string_view manifest_json);

/// The members a manifest.json lists (name, size, sha256), in its order;
/// Malformed, naming the entry, when it is not a manifest.
Result<std::vector<BundleMember>> manifest_members(std::string_view manifest_json);

}  // namespace gt
