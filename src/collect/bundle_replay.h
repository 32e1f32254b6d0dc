// gpu-triage --bundle FILE and fleet --reports DIR's bundles: a recorded
// node collected again through the one pipeline (collect_recorded), with no
// live NVML and nothing of this machine read.
#pragma once

#include <string>

#include "collect/collect.h"

namespace gt {

/// The archive extracted into a scratch folder, its report's NVML answers
/// and its root/ tree collected as the node's, the folder removed (also
/// when SIGINT or SIGTERM ends the process mid-replay). A bundle that
/// cannot be read leaves nothing to judge: origin capture, NVML not
/// loaded, the reason in nvml.error_message and warnings (UNKNOWN once
/// judged). So is one with a link out of its tree (`root` a link, a link
/// beside root/) or more than kMaxArchiveMembers members. `in.root` is
/// replaced by the bundle's root/. The snapshot's bundle_replay holds the
/// members that differ from manifest.json and the recorded verdict and
/// findings.
Collected replay_bundle(const std::string& file, CollectInputs in, Stages stages);

/// Whether `report` is replay_bundle's answer for a bundle it could not read
/// (a bundle that was read keeps its recorded origin, never a capture's).
bool bundle_unread(const Report& report);

/// Whether `file` is to be read as a bundle: its name says a compressed tar
/// (compression_for), or its first bytes are zstd's or gzip's magic.
bool looks_like_bundle(const std::string& file);

}  // namespace gt
