// One step per GPU: the findings about one GPU's hardware (its Xids, ECC
// state, loss, links, temperature, its record across boots) become one plan
// step in one voice. The strongest remedy leads (RMA over reboot over reset
// over diagnosis), the others are its evidence, and no command of a weaker
// remedy (a reset beside an RMA, a reboot beside "out of service") is kept.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checks/catalogue.h"
#include "model/report.h"

namespace gt {

/// What a finding asks for (its row's remedy rule, checks/catalogue.h).
Remedy remedy_of(const Finding& f);

/// Whether `f` is about one GPU's hardware and joins that GPU's step (its
/// row's GPU join).
bool joins_per_gpu(const Finding& f);

/// The GPU a finding is about, as one key (the normalized bus id, else
/// "index N", else the UUID); nullopt for a node-wide finding.
std::optional<std::string> gpu_key(const NodeSnapshot& s, const Finding& f);

/// The one step for `fs`, all about one GPU (at least one above info).
PlanStep gpu_step(const std::vector<const Finding*>& fs);

}  // namespace gt
