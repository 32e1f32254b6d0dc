#include "checks/fingerprint_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "history/record.h"
#include "util/redact.h"
#include "util/time_format.h"

namespace gt {
namespace fingerprint_compare {

std::string value_or_unknown(const std::optional<std::string>& s) { return s.value_or("unknown"); }

/// What became of a package that had local changes before.
std::optional<PatchFate> patch_fate(const Fingerprint& now, const PackagePrint& before,
                                    const PackagePrint*& found) {
  const PackagePrint* p = find_package(now, before.name);
  found = p;
  // Absent from this run is "no longer installed" only where this run read
  // the environment it was in: with no server on that interpreter now, the
  // package was not looked at, and its fate is unknown.
  // An environment whose directory could not be listed has no packages
  // (its notes say why): that is not "no longer installed".
  const bool env_read = std::any_of(now.python.begin(), now.python.end(), [&](const auto& e) {
    return e.site_packages == before.site_packages && !e.packages.empty();
  });
  if (!p && !env_read) return std::nullopt;
  if (!p) return PatchFate::kNotInstalled;
  if (p->version != before.version) return PatchFate::kOtherVersion;
  if (p->modified.empty() && p->fully_checked) return PatchFate::kPristine;
  return std::nullopt;  // still modified, or not fully checked: not said to be gone
}

void container(const Fingerprint& before, const Fingerprint& now,
               std::vector<FingerprintChange>& out) {
  if (!before.container || !now.container || before.container->id == now.container->id) return;
  FingerprintChange c;
  c.kind = FingerprintChangeKind::kContainerRecreated;
  c.item = "container";
  c.before = before.container->id;
  c.after = now.container->id;
  c.created_unix_s = now.container->created_unix_s;
  c.container_before = before.container;
  c.container_after = now.container;
  out.push_back(std::move(c));
}

void lost_patches(const Fingerprint& before, const Fingerprint& now,
                  std::vector<FingerprintChange>& out) {
  for (const PythonEnvPrint& e : before.python)
    for (const PackagePrint& p : e.packages) {
      if (p.modified.empty()) continue;
      const PackagePrint* is = nullptr;
      std::optional<PatchFate> fate = patch_fate(now, p, is);
      if (!fate) continue;
      FingerprintChange c;
      c.kind = FingerprintChangeKind::kPatchGone;
      c.item = p.name;
      c.before =
          fmt::format("{} with {} locally modified file{} ({})", p.version, p.modified.size(),
                      p.modified.size() == 1 ? "" : "s", modified_file_list(p.modified));
      c.after = *fate == PatchFate::kNotInstalled   ? std::string("not installed")
                : *fate == PatchFate::kOtherVersion ? is->version
                                                    : std::string("matches its wheel");
      c.package_before = p;
      c.fate = fate;
      out.push_back(std::move(c));
    }
}

void mounts(const Fingerprint& before, const Fingerprint& now,
            std::vector<FingerprintChange>& out) {
  for (const MountPrint& was : before.mounts) {
    auto is = std::find_if(now.mounts.begin(), now.mounts.end(),
                           [&](const MountPrint& m) { return m.path == was.path; });
    if (is == now.mounts.end()) continue;
    // The record holds what json_text wrote, redacted (issue 47): a source
    // with a password (//user:pw@server/share) is compared as recorded.
    const bool moved = (was.device && is->device)
                           ? *was.device != *is->device
                           : (was.source && is->source &&
                              redact_secrets(*was.source).text != redact_secrets(*is->source).text);
    if (!moved) continue;
    FingerprintChange c;
    c.kind = FingerprintChangeKind::kDataDevice;
    c.item = was.path;
    c.before = value_or_unknown(was.device ? was.device : was.source);
    c.after = value_or_unknown(is->device ? is->device : is->source);
    c.mount_before = was;
    c.mount_after = *is;
    out.push_back(std::move(c));
  }
}

const GpuPrint* gpu_at_bus(const Fingerprint& f, const std::optional<std::string>& bus) {
  for (const GpuPrint& g : f.gpus)
    if (bus && g.pci_bus_id == bus) return &g;
  return nullptr;
}

const GpuPrint* gpu_of_uuid(const Fingerprint& f, const std::optional<std::string>& uuid) {
  for (const GpuPrint& g : f.gpus)
    if (uuid && g.uuid == uuid) return &g;
  return nullptr;
}

FingerprintChange gpu_change(FingerprintChangeKind kind, std::string item, std::string before,
                             std::string after, const GpuPrint& was, const GpuPrint& is) {
  FingerprintChange c;
  c.kind = kind;
  c.item = std::move(item);
  c.before = std::move(before);
  c.after = std::move(after);
  c.gpu_before = was;
  c.gpu_after = is;
  return c;
}

std::string board(const GpuPrint& g) {
  return "serial " + *g.serial + (g.uuid ? " (" + *g.uuid + ")" : "");
}

void gpus(const Fingerprint& before, const Fingerprint& now, std::vector<FingerprintChange>& out) {
  for (const GpuPrint& is : now.gpus) {
    const GpuPrint* same = gpu_of_uuid(before, is.uuid);
    const GpuPrint* there = gpu_at_bus(before, is.pci_bus_id);
    if (!same && there && there->serial && is.serial && *there->serial != *is.serial) {
      out.push_back(gpu_change(FingerprintChangeKind::kGpuReplaced, *is.pci_bus_id, board(*there),
                               board(is), *there, is));
      continue;
    }
    if (!same) continue;
    if (same->pci_bus_id && is.pci_bus_id && *same->pci_bus_id != *is.pci_bus_id)
      out.push_back(gpu_change(FingerprintChangeKind::kGpuMoved, *is.uuid, *same->pci_bus_id,
                               *is.pci_bus_id, *same, is));
    if (same->vbios_version && is.vbios_version && *same->vbios_version != *is.vbios_version)
      out.push_back(gpu_change(FingerprintChangeKind::kVbios, *is.uuid, *same->vbios_version,
                               *is.vbios_version, *same, is));
  }
}

void version(FingerprintChangeKind kind, const char* what, const std::optional<std::string>& was,
             const std::optional<std::string>& is, std::vector<FingerprintChange>& out) {
  if (!was || !is || *was == *is) return;
  FingerprintChange c;
  c.kind = kind;
  c.item = what;
  c.before = *was;
  c.after = *is;
  out.push_back(std::move(c));
}

void packages(const Fingerprint& before, const Fingerprint& now,
              std::vector<FingerprintChange>& out) {
  for (const PythonEnvPrint& e : before.python)
    for (const PackagePrint& p : e.packages)
      if (const PackagePrint* q = find_package(now, p.name); q && q->version != p.version)
        version(FingerprintChangeKind::kPackageVersion, p.name.c_str(), p.version, q->version, out);
}

/// Units owning a GPU server now that owned none then; nothing where
/// either run did not record its units.
void server_units(const Fingerprint& before, const Fingerprint& now,
                  std::vector<FingerprintChange>& out) {
  if (!before.server_units || !now.server_units) return;
  for (const UnitPrint& u : *now.server_units) {
    const bool ran = std::any_of(before.server_units->begin(), before.server_units->end(),
                                 [&](const UnitPrint& w) { return w.unit == u.unit; });
    if (ran) continue;
    FingerprintChange c;
    c.kind = FingerprintChangeKind::kServerUnit;
    c.item = u.unit;
    c.before = "no GPU server";
    c.after = u.server + " server";
    c.unit_after = u;
    out.push_back(std::move(c));
  }
}

}  // namespace fingerprint_compare

namespace {
constexpr const char* kMinute = "%Y-%m-%d %H:%M UTC";
}  // namespace

FingerprintBaseline fingerprint_baseline(const GpuHistory& h) {
  for (auto b = h.boots.rbegin(); b != h.boots.rend(); ++b)
    if (b->boot_id != h.boot_id && b->last_fingerprint)
      return {&*b->last_fingerprint, b->boot_id, false, b->last_fingerprint->taken_unix_s,
              fmt::format("the last run of boot {} ({})", b->boot_id.substr(0, 8),
                          format_utc(b->last_fingerprint->taken_unix_s, kMinute))};
  for (const HistoryBoot& b : h.boots)
    if (b.boot_id == h.boot_id && b.first_fingerprint)
      return {&*b.first_fingerprint, b.boot_id, true, b.first_fingerprint->taken_unix_s,
              fmt::format("this boot's first run ({})",
                          format_utc(b.first_fingerprint->taken_unix_s, kMinute))};
  return {};
}

FingerprintBaseline this_boots_latest(const GpuHistory& h, const FingerprintBaseline& b) {
  const HistoryBoot* boot = h.boot_id ? find_boot(h, *h.boot_id) : nullptr;
  if (!b.print || !boot || !boot->last_fingerprint) return {};
  const Fingerprint& latest = *boot->last_fingerprint;
  if (&latest == b.print || latest == *b.print) return {};
  return {&latest, boot->boot_id, true, latest.taken_unix_s,
          fmt::format("this boot's latest run ({})", format_utc(latest.taken_unix_s, kMinute))};
}

std::vector<FingerprintChange> compare_fingerprints(const Fingerprint& before,
                                                    const Fingerprint& now) {
  namespace fc = fingerprint_compare;
  using K = FingerprintChangeKind;
  std::vector<FingerprintChange> out;
  fc::container(before, now, out);
  fc::lost_patches(before, now, out);
  fc::mounts(before, now, out);
  fc::gpus(before, now, out);
  fc::version(K::kDriver, "kernel module", before.driver.kernel_module_version,
              now.driver.kernel_module_version, out);
  fc::version(K::kDriver, "NVML", before.driver.nvml_driver_version, now.driver.nvml_driver_version,
              out);
  fc::version(K::kDriver, "libcuda", before.driver.libcuda_version, now.driver.libcuda_version,
              out);
  fc::version(K::kKernel, "kernel", before.kernel_release, now.kernel_release, out);
  fc::packages(before, now, out);
  fc::server_units(before, now, out);
  return out;
}

std::string modified_file_list(const std::vector<ModifiedFile>& files) {
  std::string out;
  for (const ModifiedFile& m : files) out += (out.empty() ? "" : ", ") + m.path;
  return out;
}

}  // namespace gt
