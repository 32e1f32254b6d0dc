// What changed since the job last ran (issue 36): this run's fingerprint
// (model/fingerprint.h) against the last one of a previous boot in the
// record across boots (the run "before the crash"), else the first of this
// boot, compared once (checks/fingerprint_compare.h, which fleet --drift
// uses too). One finding per change, worded by what it breaks: a container
// recreated takes every change made inside it (a patched package is
// pristine again: re-apply the patch before resuming), a data path now on
// another device holds other data, a board replaced at a bus id is not the
// GPU its record is about. Changes made on purpose (a driver upgrade) are
// still said, as info. Without a record: a package with locally modified
// files is said (info), so the patch is known before it is lost.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "checks/checks.h"
#include "checks/fingerprint_compare.h"
#include "history/record.h"
#include "util/plural.h"
#include "util/shell_word.h"
#include "util/time_format.h"

namespace gt {
namespace {

using Kind = FingerprintChangeKind;

std::string or_unknown(const std::optional<std::string>& s) { return s.value_or("unknown"); }

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<const FingerprintChange*> of_kind(const std::vector<FingerprintChange>& changes,
                                              Kind kind) {
  std::vector<const FingerprintChange*> out;
  for (const FingerprintChange& c : changes)
    if (c.kind == kind) out.push_back(&c);
  return out;
}

/// "is no longer installed", "is now version 0.4.7", "now matches its wheel".
std::string fate_phrase(const FingerprintChange& c) {
  if (*c.fate == PatchFate::kNotInstalled) return "is no longer installed";
  if (*c.fate == PatchFate::kOtherVersion) return "is now version " + c.after;
  return "now matches its wheel";
}

/// A container's image as said: "docker.io/lmsysorg/sglang:latest (id
/// 9b1c0e2f3a4d)", or the short id alone when the name is not known.
std::string image_text(const ContainerPrint& c) {
  const std::string id = "id " + c.image_id->substr(0, 12);
  return c.image ? *c.image + " (" + id + ")" : id;
}

/// Of a recreated container, whether its image is another one; null when
/// either image id is not known.
std::optional<bool> other_image(const FingerprintChange& c) {
  if (!c.container_before || !c.container_after || !c.container_before->image_id ||
      !c.container_after->image_id)
    return std::nullopt;
  return *c.container_before->image_id != *c.container_after->image_id;
}

/// ", image A -> B", ", from the same image A", or "" when not known.
std::string image_evidence(const FingerprintChange& c) {
  const std::optional<bool> another = other_image(c);
  if (!another) return "";
  return *another ? fmt::format(", image {} -> {}", image_text(*c.container_before),
                                image_text(*c.container_after))
                  : ", from the same image " + image_text(*c.container_after);
}

void container_and_patches(const std::vector<FingerprintChange>& changes,
                           const FingerprintBaseline& b, std::vector<Finding>& out) {
  std::vector<std::string> lost;
  std::string patch_evidence;
  for (const FingerprintChange* c : of_kind(changes, Kind::kPatchGone)) {
    const PackagePrint& p = *c->package_before;
    lost.push_back(fmt::format("{} {} had {} locally modified file{} before ({}) and {}", p.name,
                               p.version, p.modified.size(), p.modified.size() == 1 ? "" : "s",
                               modified_file_list(p.modified), fate_phrase(*c)));
    patch_evidence +=
        fmt::format("{}: {} in {}; ", p.name, modified_file_list(p.modified), p.site_packages);
  }
  const std::vector<const FingerprintChange*> container =
      of_kind(changes, Kind::kContainerRecreated);
  const bool recreated = !container.empty();
  if (!recreated && lost.empty()) return;
  Finding f = node_finding(recreated ? "change.container_recreated" : "change.patch_gone");
  f.subject.kind = "node";
  std::string created;
  if (recreated && container[0]->created_unix_s)
    created = " (created " + format_utc(*container[0]->created_unix_s, "%Y-%m-%d %H:%M UTC") + ")";
  if (recreated)
    f.evidence =
        fmt::format("container {} at {}, now {}{}{}; ", container[0]->before.substr(0, 12), b.when,
                    container[0]->after.substr(0, 12), created, image_evidence(*container[0]));
  f.evidence += patch_evidence + (recreated ? "" : "record " + b.when);
  if (f.evidence.ends_with("; ")) f.evidence.resize(f.evidence.size() - 2);
  if (lost.empty()) {
    f.severity = Severity::kInfo;
    f.title = fmt::format(
        "The container was recreated{} since {}{}: anything installed or changed "
        "inside the old one is gone",
        other_image(*container[0]).value_or(false) ? " from another image" : "", b.when, created);
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

Finding data_device(const FingerprintChange& c, const FingerprintBaseline& b) {
  const MountPrint& was = *c.mount_before;
  const MountPrint& is = *c.mount_after;
  Finding f = node_finding("change.data_device");
  f.subject.kind = "path";
  f.subject.path = was.path;
  f.title = fmt::format("{} was {} and is now {}: the data under it is another disk's", was.path,
                        c.before, c.after);
  f.evidence = fmt::format("at {}: {} {} ({}); now: {} {} ({})", b.when, or_unknown(was.source),
                           or_unknown(was.fs_type), or_unknown(was.expected), or_unknown(is.source),
                           or_unknown(is.fs_type), or_unknown(is.expected));
  f.action =
      "Check that the job's data (checkpoints, output) is on the new device, or copied "
      "from the old one, before resuming.";
  f.commands = {"lsblk -f", "findmnt " + shell_word(was.path)};
  return f;
}

/// A finding about the GPU as it is now.
Finding gpu_change_finding(const char* id, const GpuPrint& is) {
  Finding f = node_finding(id);
  f.subject = Subject{.kind = "gpu", .gpu_uuid = is.uuid, .pci_bus_id = is.pci_bus_id};
  return f;
}

/// " part number 692-2G520-0200-000" where the board said it, else "".
/// The serial decides whether a board was replaced, never the part number.
std::string part_text(const GpuPrint& g) {
  return g.board_part_number ? " part number " + *g.board_part_number : "";
}

Finding gpu_replaced(const FingerprintChange& c, const FingerprintBaseline& b) {
  const GpuPrint& there = *c.gpu_before;
  const GpuPrint& is = *c.gpu_after;
  Finding f = gpu_change_finding("change.gpu_replaced", is);
  f.title = fmt::format(
      "The GPU at {} was replaced (serial {} -> {}): the old board's "
      "record does not apply to it",
      *is.pci_bus_id, *there.serial, *is.serial);
  f.evidence =
      fmt::format("at {}: {} serial {}{}; now {} serial {}{}", b.when, or_unknown(there.uuid),
                  *there.serial, part_text(there), or_unknown(is.uuid), *is.serial, part_text(is));
  f.action =
      "The new board starts with a clean record; its predecessor's Xids "
      "stay with the old UUID.";
  return f;
}

Finding gpu_moved(const FingerprintChange& c, const FingerprintBaseline& b) {
  Finding f = gpu_change_finding("change.gpu_moved", *c.gpu_after);
  f.title = fmt::format("GPU {} is at {} now, {} at {}", c.item, c.after, c.before, b.when);
  f.evidence = f.title;
  f.action = "Indices and bus ids in the job's configuration may name another GPU now.";
  return f;
}

Finding vbios(const FingerprintChange& c, const FingerprintBaseline& b) {
  Finding f = gpu_change_finding("change.vbios", *c.gpu_after);
  f.title = fmt::format("GPU {}'s VBIOS changed: {} -> {}", c.item, c.before, c.after);
  f.evidence = "since " + b.when;
  f.action = "Said once: a firmware update changes the GPU's behaviour under the job.";
  return f;
}

/// Mounts and GPUs: one finding per change, in the comparison's order.
void one_each(const std::vector<FingerprintChange>& changes, const FingerprintBaseline& b,
              std::vector<Finding>& out) {
  for (const FingerprintChange& c : changes) {
    if (c.kind == Kind::kDataDevice) out.push_back(data_device(c, b));
    if (c.kind == Kind::kGpuReplaced) out.push_back(gpu_replaced(c, b));
    if (c.kind == Kind::kGpuMoved) out.push_back(gpu_moved(c, b));
    if (c.kind == Kind::kVbios) out.push_back(vbios(c, b));
  }
}

/// "kernel module 580.95.05 -> 590.48.01" for each change of those kinds.
std::vector<std::string> version_changes(const std::vector<FingerprintChange>& changes,
                                         std::initializer_list<Kind> kinds) {
  std::vector<std::string> out;
  for (const FingerprintChange& c : changes)
    if (std::find(kinds.begin(), kinds.end(), c.kind) != kinds.end())
      out.push_back(fmt::format("{} {} -> {}", c.item, c.before, c.after));
  return out;
}

void driver(const std::vector<FingerprintChange>& all, const FingerprintBaseline& b,
            std::vector<Finding>& out) {
  const std::vector<std::string> changes = version_changes(all, {Kind::kDriver, Kind::kKernel});
  if (changes.empty()) return;
  Finding f = node_finding("change.driver");
  f.subject.kind = "node";
  f.title = "The driver stack changed since the job last ran: " + joined(changes, ", ");
  f.evidence = "since " + b.when;
  f.action = "Said once: a job built or tested against the old driver may behave differently.";
  out.push_back(f);
}

void packages(const std::vector<FingerprintChange>& all, const FingerprintBaseline& b,
              std::vector<Finding>& out) {
  const std::vector<std::string> changes = version_changes(all, {Kind::kPackageVersion});
  if (changes.empty()) return;
  Finding f = node_finding("change.package_version");
  f.subject.kind = "node";
  f.title = fmt::format("{} package{} of the GPU servers' python changed version: {}",
                        changes.size(), changes.size() == 1 ? "" : "s", joined(changes, ", "));
  f.evidence = "since " + b.when;
  f.action = "Said once: the job now runs another version of its stack.";
  out.push_back(f);
}

/// A unit starting a GPU server now that ran none when the job last ran
/// starts it again after every boot (the story's auto-started SGLang).
void server_units(const std::vector<FingerprintChange>& all, const FingerprintBaseline& b,
                  std::vector<Finding>& out) {
  for (const FingerprintChange* c : of_kind(all, Kind::kServerUnit)) {
    const UnitPrint& u = *c->unit_after;
    Finding f = node_finding("change.server_unit");
    f.subject.kind = "node";
    // Only a start at boot says the unit is enabled; else it may have been
    // started by hand (systemctl start) and not come back.
    f.title = u.auto_started
                  ? fmt::format(
                        "{} started a GPU server ({}) at boot and ran none at {}: it starts it "
                        "again after every boot",
                        u.unit, u.server, b.when)
                  : fmt::format(
                        "{} runs a GPU server ({}) now and ran none at {}: if the unit is "
                        "enabled, it starts it again after every boot",
                        u.unit, u.server, b.when);
    f.evidence = fmt::format("{}{}{}", u.unit, u.auto_started ? ", started at boot" : "",
                             u.restart_policy ? ", " + *u.restart_policy : "");
    f.action =
        "If the job needs these GPUs, disable the unit as well as stopping its server, or the "
        "next reboot brings it back.";
    f.commands = {u.user_unit
                      ? "systemctl --user disable --now " + u.unit + "   # as the user who owns it"
                      : "sudo systemctl disable --now " + u.unit};
    out.push_back(f);
  }
}

/// The notes (info) among `found` are said once per boot: each gets its
/// key, and one an operator's triage already showed in this boot (the
/// record's said_changes) is left out. Warnings hold while the change does.
void say_notes_once(const GpuHistory& h, std::vector<Finding>& found, std::vector<Finding>& out) {
  const HistoryBoot* boot = h.boot_id ? find_boot(h, *h.boot_id) : nullptr;
  for (Finding& f : found) {
    if (f.severity == Severity::kInfo) {
      f.said_once_key =
          f.id + " " + f.subject.gpu_uuid.value_or(f.subject.path.value_or("")) + ": " + f.title;
      if (boot && std::find(boot->said_changes.begin(), boot->said_changes.end(),
                            *f.said_once_key) != boot->said_changes.end())
        continue;
    }
    out.push_back(std::move(f));
  }
}

/// Without a record to compare with: a local patch is said, so that it is
/// known before a recreated container loses it.
void local_patches(const Fingerprint& now, std::vector<Finding>& out) {
  for (const PythonEnvPrint& e : now.python)
    for (const PackagePrint& p : e.packages) {
      if (p.modified.empty()) continue;
      Finding f = path_finding("change.local_patch", p.site_packages);
      f.title = fmt::format(
          "{} {} has {} locally modified file{} ({}): a recreated container "
          "or a reinstall loses them",
          p.name, p.version, p.modified.size(), p.modified.size() == 1 ? "" : "s",
          modified_file_list(p.modified));
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

/// When the job last wrote: its --data's newest sample, else the newest
/// file under --path.
std::optional<int64_t> job_last_write(const NodeSnapshot& s) {
  if (s.data && s.data->last_write_unix_s) return s.data->last_write_unix_s;
  std::optional<int64_t> newest;
  if (s.incident)
    for (const NewestFile& nf : s.incident->newest_files)
      if (nf.mtime_unix_s && (!newest || *nf.mtime_unix_s > *newest)) newest = nf.mtime_unix_s;
  return newest;
}

/// The job's directories as the node names them (--path, an absolute --data).
std::vector<std::string> job_dirs(const NodeSnapshot& s) {
  std::vector<std::string> dirs;
  if (s.data && s.data->dir.starts_with("/")) dirs.push_back(s.data->dir);
  if (s.incident)
    for (const NewestFile& nf : s.incident->newest_files)
      if (nf.dir.starts_with("/")) dirs.push_back(nf.dir);
  return dirs;
}

/// The host directory of `c`'s mounts that holds one of `dirs`, if any.
std::optional<std::string> mounted_job_dir(const ContainerInfo& c,
                                           const std::vector<std::string>& dirs) {
  for (const ContainerMount& m : c.mounts)
    for (const std::string& d : dirs)
      if (m.source == "/" || d == m.source || d.starts_with(m.source + "/")) return m.source;
  return std::nullopt;
}

/// What a recreated container's finding can say of local changes: only
/// Python packages whose files differ from RECORD are visible.
std::string visible_changes(const Fingerprint* now) {
  if (!now)
    return "Of such changes only installed Python packages whose files differ from their RECORD "
           "can be seen, and this run did not read them (no state directory: --state-dir DIR); "
           "files patched elsewhere, installs since removed and settings cannot be seen.";
  size_t envs = now->python.size(), modified = 0;
  for (const PythonEnvPrint& e : now->python)
    for (const PackagePrint& p : e.packages) modified += p.modified.empty() ? 0 : 1;
  if (envs == 0)
    return "No Python environment of a running server could be read, so no local change can "
           "be seen from here.";
  return fmt::format(
      "Of such changes only installed Python packages whose files differ from their RECORD can "
      "be seen, in the running servers' environments: {} now; files patched outside them, apt "
      "or pip installs since removed, and settings cannot be seen.",
      modified == 0 ? std::string("none") : count_of(modified, "package", "packages"));
}

/// Seen from the host: a GPU server's container that mounts the job's
/// directory and was created after the job last wrote is not the container
/// the job ran in (a `docker run --rm` at each start makes a new one).
void server_container_after_job(const NodeSnapshot& s, const Fingerprint* now,
                                std::vector<Finding>& out) {
  const std::optional<int64_t> last = job_last_write(s);
  if (!last || !s.servers) return;
  const std::vector<std::string> dirs = job_dirs(s);
  std::vector<std::string> seen;
  for (const Server& sv : *s.servers) {
    if (!sv.container || !sv.container->created_unix_s || *sv.container->created_unix_s <= *last)
      continue;
    const ContainerInfo& c = *sv.container;
    std::optional<std::string> mounted = mounted_job_dir(c, dirs);
    if (!mounted || std::find(seen.begin(), seen.end(), c.id) != seen.end()) continue;
    seen.push_back(c.id);
    const std::string name = container_name_id(c);
    Finding f = path_finding("change.container_after_job", *mounted);
    f.title = fmt::format(
        "Container {}, which mounts {}, was created after the job last wrote: anything "
        "installed or patched by hand in the container the job ran in is gone",
        name, *mounted);
    f.evidence = fmt::format(
        "Docker's config.v2.json: created {}; {} last written {}{}",
        format_utc(*c.created_unix_s, "%Y-%m-%d %H:%M:%S UTC"), *mounted,
        format_utc(*last, "%Y-%m-%d %H:%M:%S UTC"),
        c.created_by_unit ? fmt::format("; {} creates it each time it starts{}", *c.created_by_unit,
                                        c.auto_remove == true ? " (docker run --rm)" : "")
                          : std::string());
    f.action =
        "Re-apply what the job needed in the old container (a patched package, pip installs) "
        "before resuming, and keep it where a new container gets it (the image, a mounted "
        "directory). " +
        visible_changes(now);
    out.push_back(std::move(f));
  }
}

}  // namespace

void check_changes(const NodeSnapshot& s, std::vector<Finding>& out) {
  if (!s.fingerprint || !s.history) {
    // No record read: a server's container made after the job's last
    // write is still a new container.
    server_container_after_job(s, nullptr, out);
    return;
  }
  const Fingerprint& now = *s.fingerprint;
  const FingerprintBaseline b = fingerprint_baseline(*s.history);
  std::vector<Finding> found;
  if (!b.print) {
    local_patches(now, found);
    container_after_job(s, now, found);
    if (!now.container || now.container->id == kHostNotContainer)
      server_container_after_job(s, &now, found);
  } else {
    const std::vector<FingerprintChange> changes = compare_fingerprints(*b.print, now);
    // A patch made after the baseline and lost since this boot's latest run
    // (a container recreated within the boot) is the one to re-apply.
    const FingerprintBaseline latest = this_boots_latest(*s.history, b);
    const std::vector<FingerprintChange> recent =
        latest.print ? compare_fingerprints(*latest.print, now) : std::vector<FingerprintChange>{};
    if (!of_kind(recent, Kind::kPatchGone).empty())
      container_and_patches(recent, latest, found);
    else
      container_and_patches(changes, b, found);
    one_each(changes, b, found);
    driver(changes, b, found);
    packages(changes, b, found);
    server_units(changes, b, found);
  }
  say_notes_once(*s.history, found, out);
}

}  // namespace gt
