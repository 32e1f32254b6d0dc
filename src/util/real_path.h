// A path as the kernel resolves it (realpath(3)): absolute, every link
// followed, no "." or "..". Comparing two paths for "the same file" or "under
// this folder" needs both resolved; one function so every caller frees and
// fails alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gt {

/// Nullopt when `path` cannot be resolved (a component missing or not
/// searchable); callers that fall back to the path as given say so with
/// `real_path(p).value_or(p)`.
std::optional<std::string> real_path(const std::string& path);

/// The paths that resolve, resolved, in the order given; the others are
/// left out.
std::vector<std::string> real_paths(const std::vector<std::string>& paths);

}  // namespace gt
