// The report's "rdma" section (model/rdma.h) written and read back: the
// inverse pair in one file, so a field added to one side is seen missing
// from the other in the round-trip test.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/rdma.h"

namespace gt {

nlohmann::ordered_json rdma_json(const std::optional<RdmaState>& r);

namespace json_read {
RdmaState rdma_of(const nlohmann::ordered_json& j, const std::string& path);
}  // namespace json_read

}  // namespace gt
