// What changed since the job last ran (issue 36): this run's fingerprint
// (model/fingerprint.h) against the last one of a previous boot in the
// record across boots (the run "before the crash"), else the first of this
// boot. One finding per change, worded by what it breaks: a container
// recreated takes every change made inside it (a patched package is
// pristine again: re-apply the patch before resuming), a data path now on
// another device holds other data, a board replaced at a bus id is not the
// GPU its record is about. Changes made on purpose (a driver upgrade) are
// still said, as info. Without a record: a package with locally modified
// files is said (info), so the patch is known before it is lost.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "checks/checks.h"
#include "util/time_format.h"

namespace gt {
namespace {

struct Baseline {
  const Fingerprint* print = nullptr;
  std::string when;  ///< "the last run of boot 1d0c5e21 (2026-01-01 10:00 UTC)"
};

Baseline baseline_of(const GpuHistory& h) {
  for (auto b = h.boots.rbegin(); b != h.boots.rend(); ++b)
    if (b->boot_id != h.boot_id && b->last_fingerprint)
      return {&*b->last_fingerprint,
              fmt::format("the last run of boot {} ({})", b->boot_id.substr(0, 8),
                          format_utc(b->last_fingerprint->taken_unix_s, "%Y-%m-%d %H:%M UTC"))};
  for (const HistoryBoot& b : h.boots)
    if (b.boot_id == h.boot_id && b.first_fingerprint)
      return {&*b.first_fingerprint,
              fmt::format("this boot's first run ({})",
                          format_utc(b.first_fingerprint->taken_unix_s, "%Y-%m-%d %H:%M UTC"))};
  return {};
}

std::string or_unknown(const std::optional<std::string>& s) { return s.value_or("unknown"); }

std::string file_list(const std::vector<ModifiedFile>& files) {
  std::string out;
  for (const ModifiedFile& m : files) out += (out.empty() ? "" : ", ") + m.path;
  return out;
}

/// What became of a package that had local changes before.
std::optional<std::string> patch_fate(const Fingerprint& now, const PackagePrint& before) {
  const PackagePrint* p = find_package(now, before.name);
  // Absent from this run is "no longer installed" only where this run read
  // the environment it was in: with no server on that interpreter now, the
  // package was not looked at, and its fate is unknown.
  const bool env_read = std::any_of(now.python.begin(), now.python.end(), [&](const auto& e) {
    return e.site_packages == before.site_packages;
  });
  if (!p && !env_read) return std::nullopt;
  if (!p) return "is no longer installed";
  if (p->version != before.version) return "is now version " + p->version;
  if (p->modified.empty() && p->fully_checked) return std::string("now matches its wheel");
  return std::nullopt;  // still modified, or not fully checked: not said to be gone
}

/// The packages whose local changes are gone, one phrase each.
std::vector<std::string> lost_patches(const Fingerprint& before, const Fingerprint& now,
                                      std::string& evidence) {
  std::vector<std::string> out;
  for (const PythonEnvPrint& e : before.python)
    for (const PackagePrint& p : e.packages) {
      if (p.modified.empty()) continue;
      std::optional<std::string> fate = patch_fate(now, p);
      if (!fate) continue;
      out.push_back(fmt::format("{} {} had {} locally modified file{} before ({}) and {}", p.name,
                                p.version, p.modified.size(), p.modified.size() == 1 ? "" : "s",
                                file_list(p.modified), *fate));
      evidence += fmt::format("{}: {} in {}; ", p.name, file_list(p.modified), p.site_packages);
    }
  return out;
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

/// A container's image as said: "docker.io/lmsysorg/sglang:latest (id
/// 9b1c0e2f3a4d)", or the short id alone when the name is not known.
std::string image_text(const ContainerPrint& c) {
  const std::string id = "id " + c.image_id->substr(0, 12);
  return c.image ? *c.image + " (" + id + ")" : id;
}

/// Of a recreated container, whether its image is another one; null when
/// either image id is not known.
std::optional<bool> other_image(const ContainerPrint& was, const ContainerPrint& is) {
  if (!was.image_id || !is.image_id) return std::nullopt;
  return *was.image_id != *is.image_id;
}

void container_and_patches(const Fingerprint& before, const Fingerprint& now, const Baseline& b,
                           std::vector<Finding>& out) {
  std::string patch_evidence;
  const std::vector<std::string> lost = lost_patches(before, now, patch_evidence);
  const bool recreated =
      before.container && now.container && before.container->id != now.container->id;
  if (!recreated && lost.empty()) return;
  Finding f = node_finding(recreated ? "change.container_recreated" : "change.patch_gone");
  f.subject.kind = "node";
  std::string created;
  if (recreated && now.container->created_unix_s)
    created = " (created " + format_utc(*now.container->created_unix_s, "%Y-%m-%d %H:%M UTC") + ")";
  const std::optional<bool> another =
      recreated ? other_image(*before.container, *now.container) : std::nullopt;
  if (recreated) {
    f.evidence = fmt::format("container {} at {}, now {}{}", before.container->id.substr(0, 12),
                             b.when, now.container->id.substr(0, 12), created);
    if (another)
      f.evidence += *another ? fmt::format(", image {} -> {}", image_text(*before.container),
                                           image_text(*now.container))
                             : ", from the same image " + image_text(*now.container);
    f.evidence += "; ";
  }
  f.evidence += patch_evidence + "record " + b.when;
  if (lost.empty()) {
    f.severity = Severity::kInfo;
    f.title = fmt::format(
        "The container was recreated{} since {}{}: anything installed or changed "
        "inside the old one is gone",
        another.value_or(false) ? " from another image" : "", b.when, created);
    f.action = "Check that what the job needs inside the container is there before resuming.";
    out.push_back(f);
    return;
  }
  f.severity = Severity::kWarning;
  f.title = fmt::format("{}: {}: re-apply the patch before resuming",
                        recreated ? "The container was recreated; in-container changes are gone"
                                  : "Local changes to the server's packages are gone",
                        joined(lost, "; "));
  f.action =
      "Re-apply the patch to the files named (from wherever it is kept) before the "
      "servers are restarted and the job resumed: without it the job runs the pristine "
      "package.";
  out.push_back(f);
}

void mounts(const Fingerprint& before, const Fingerprint& now, const Baseline& b,
            std::vector<Finding>& out) {
  for (const MountPrint& was : before.mounts) {
    auto is = std::find_if(now.mounts.begin(), now.mounts.end(),
                           [&](const MountPrint& m) { return m.path == was.path; });
    if (is == now.mounts.end()) continue;
    const bool moved = (was.device && is->device)
                           ? *was.device != *is->device
                           : (was.source && is->source && *was.source != *is->source);
    if (!moved) continue;
    Finding f = node_finding("change.data_device");
    f.subject.kind = "path";
    f.subject.path = was.path;
    f.title = fmt::format("{} was {} and is now {}: the data under it is another disk's", was.path,
                          or_unknown(was.device ? was.device : was.source),
                          or_unknown(is->device ? is->device : is->source));
    f.evidence =
        fmt::format("at {}: {} {} ({}); now: {} {} ({})", b.when, or_unknown(was.source),
                    or_unknown(was.fs_type), or_unknown(was.expected), or_unknown(is->source),
                    or_unknown(is->fs_type), or_unknown(is->expected));
    f.action =
        "Check that the job's data (checkpoints, output) is on the new device, or copied "
        "from the old one, before resuming.";
    f.commands = {"lsblk -f", "findmnt " + was.path};
    out.push_back(f);
  }
}

const GpuPrint* by_bus(const Fingerprint& f, const std::optional<std::string>& bus) {
  for (const GpuPrint& g : f.gpus)
    if (bus && g.pci_bus_id == bus) return &g;
  return nullptr;
}

const GpuPrint* by_uuid(const Fingerprint& f, const std::optional<std::string>& uuid) {
  for (const GpuPrint& g : f.gpus)
    if (uuid && g.uuid == uuid) return &g;
  return nullptr;
}

/// " part number 692-2G520-0200-000" where the board said it, else "".
std::string part_text(const GpuPrint& g) {
  return g.board_part_number ? " part number " + *g.board_part_number : "";
}

/// A GPU that kept its serial at a bus id is the same board whatever its
/// part number says: the serial decides (a part number alone says nothing).
void gpus(const Fingerprint& before, const Fingerprint& now, const Baseline& b,
          std::vector<Finding>& out) {
  for (const GpuPrint& is : now.gpus) {
    const GpuPrint* same = by_uuid(before, is.uuid);
    const GpuPrint* there = by_bus(before, is.pci_bus_id);
    if (!same && there && there->serial && is.serial && *there->serial != *is.serial) {
      Finding f = node_finding("change.gpu_replaced");
      f.subject.kind = "gpu";
      f.subject.gpu_uuid = is.uuid;
      f.subject.pci_bus_id = is.pci_bus_id;
      f.title = fmt::format(
          "The GPU at {} was replaced (serial {} -> {}): the old board's "
          "record does not apply to it",
          *is.pci_bus_id, *there->serial, *is.serial);
      f.evidence = fmt::format("at {}: {} serial {}{}; now {} serial {}{}", b.when,
                               or_unknown(there->uuid), *there->serial, part_text(*there),
                               or_unknown(is.uuid), *is.serial, part_text(is));
      f.action =
          "Said once: the new board starts with a clean record; its predecessor's Xids "
          "stay with the old UUID.";
      out.push_back(f);
      continue;
    }
    if (!same) continue;
    if (same->pci_bus_id && is.pci_bus_id && *same->pci_bus_id != *is.pci_bus_id) {
      Finding f = node_finding("change.gpu_moved");
      f.subject.kind = "gpu";
      f.subject.gpu_uuid = is.uuid;
      f.subject.pci_bus_id = is.pci_bus_id;
      f.title = fmt::format("GPU {} is at {} now, {} at {}", *is.uuid, *is.pci_bus_id,
                            *same->pci_bus_id, b.when);
      f.evidence = f.title;
      f.action = "Indices and bus ids in the job's configuration may name another GPU now.";
      out.push_back(f);
    }
    if (same->vbios_version && is.vbios_version && *same->vbios_version != *is.vbios_version) {
      Finding f = node_finding("change.vbios");
      f.subject.kind = "gpu";
      f.subject.gpu_uuid = is.uuid;
      f.subject.pci_bus_id = is.pci_bus_id;
      f.title = fmt::format("GPU {}'s VBIOS changed: {} -> {}", *is.uuid, *same->vbios_version,
                            *is.vbios_version);
      f.evidence = "since " + b.when;
      f.action = "Said once: a firmware update changes the GPU's behaviour under the job.";
      out.push_back(f);
    }
  }
}

void version_change(const char* what, const std::optional<std::string>& was,
                    const std::optional<std::string>& is, std::vector<std::string>& changes) {
  if (was && is && *was != *is) changes.push_back(fmt::format("{} {} -> {}", what, *was, *is));
}

void driver(const Fingerprint& before, const Fingerprint& now, const Baseline& b,
            std::vector<Finding>& out) {
  std::vector<std::string> changes;
  version_change("kernel module", before.driver.kernel_module_version,
                 now.driver.kernel_module_version, changes);
  version_change("NVML", before.driver.nvml_driver_version, now.driver.nvml_driver_version,
                 changes);
  version_change("libcuda", before.driver.libcuda_version, now.driver.libcuda_version, changes);
  version_change("kernel", before.kernel_release, now.kernel_release, changes);
  if (changes.empty()) return;
  Finding f = node_finding("change.driver");
  f.subject.kind = "node";
  f.title = "The driver stack changed since the job last ran: " + joined(changes, ", ");
  f.evidence = "since " + b.when;
  f.action = "Said once: a job built or tested against the old driver may behave differently.";
  out.push_back(f);
}

void packages(const Fingerprint& before, const Fingerprint& now, const Baseline& b,
              std::vector<Finding>& out) {
  std::vector<std::string> changes;
  for (const PythonEnvPrint& e : before.python)
    for (const PackagePrint& p : e.packages)
      if (const PackagePrint* q = find_package(now, p.name); q && q->version != p.version)
        changes.push_back(fmt::format("{} {} -> {}", p.name, p.version, q->version));
  if (changes.empty()) return;
  Finding f = node_finding("change.package_version");
  f.subject.kind = "node";
  f.title = fmt::format("{} package{} of the GPU servers' python changed version: {}",
                        changes.size(), changes.size() == 1 ? "" : "s", joined(changes, ", "));
  f.evidence = "since " + b.when;
  f.action = "Said once: the job now runs another version of its stack.";
  out.push_back(f);
}

/// Without a record to compare with: a local patch is said, so that it is
/// known before a recreated container loses it.
void local_patches(const Fingerprint& now, std::vector<Finding>& out) {
  for (const PythonEnvPrint& e : now.python)
    for (const PackagePrint& p : e.packages) {
      if (p.modified.empty()) continue;
      Finding f = node_finding("change.local_patch");
      f.subject.kind = "path";
      f.subject.path = p.site_packages;
      f.title = fmt::format(
          "{} {} has {} locally modified file{} ({}): a recreated container "
          "or a reinstall loses them",
          p.name, p.version, p.modified.size(), p.modified.size() == 1 ? "" : "s",
          file_list(p.modified));
      f.evidence = fmt::format("differ from RECORD's sha256 in {}, used by {}", p.site_packages,
                               joined(e.used_by, ", "));
      f.action = "Keep the patch where a new container can get it (an image layer, a repository).";
      out.push_back(f);
    }
}

/// Without a record to compare with: a container created after the job's
/// output was last written is not the container the job ran in, whatever
/// the record says (issue 36 item 3).
void container_after_job(const NodeSnapshot& s, const Fingerprint& now, std::vector<Finding>& out) {
  if (!s.data || !s.data->last_write_unix_s || !now.container) return;
  const ContainerPrint& c = *now.container;
  if (c.id == kHostNotContainer || !c.created_unix_s) return;  // unknown: nothing said
  if (*c.created_unix_s <= *s.data->last_write_unix_s) return;
  Finding f = node_finding("change.container_after_job");
  f.subject.kind = "path";
  f.subject.path = s.data->dir;
  f.title =
      "the container was created after the job last wrote: anything installed or patched "
      "inside the old one is gone";
  f.evidence = fmt::format("container {} created {}; {} last written {}", c.id.substr(0, 12),
                           format_utc(*c.created_unix_s, "%Y-%m-%d %H:%M:%S UTC"), s.data->dir,
                           format_utc(*s.data->last_write_unix_s, "%Y-%m-%d %H:%M:%S UTC"));
  f.action =
      "Re-apply what the job's stack needed inside the old container (local patches, pip "
      "installs) before resuming.";
  out.push_back(f);
}

}  // namespace

void check_changes(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.fingerprint || !s.history) return;
  const Fingerprint& now = *s.fingerprint;
  const Baseline b = baseline_of(*s.history);
  if (!b.print) {
    local_patches(now, out);
    container_after_job(s, now, out);
    return;
  }
  container_and_patches(*b.print, now, b, out);
  mounts(*b.print, now, b, out);
  gpus(*b.print, now, b, out);
  driver(*b.print, now, b, out);
  packages(*b.print, now, b, out);
}

}  // namespace gt
