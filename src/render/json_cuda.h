// The report's "cuda" section (model/cuda_readiness.h) written and read
// back: the inverse pair in one file, so a field added to one side is seen
// missing from the other in the round-trip test.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/cuda_readiness.h"

namespace gt {

nlohmann::ordered_json cuda_readiness_json(const std::optional<CudaReadiness>& r);

namespace json_read {
CudaReadiness cuda_readiness_of(const nlohmann::ordered_json& j, const std::string& path);
}  // namespace json_read

}  // namespace gt
