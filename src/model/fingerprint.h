// The node's fingerprint: what a job running here depends on that can change
// under it between two runs (a board swapped, a driver upgraded, the
// container recreated, a data path remounted from another disk, a package
// patched in place). Written with each run into the record across boots
// (history/), so the triage after a crash can say what is no longer as it
// was when the job last ran (checks/change_checks.cc).
//
// Built from the snapshot (fingerprint_of) plus two collectors of its own:
// the container identity (sources/procfs/container_identity.h) and the GPU
// processes' python packages (sources/procfs/python_packages.h). Unknown is
// null, never "": a capture has no container, an old driver no part number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/describe.h"

namespace gt {

struct NodeSnapshot;

/// One GPU as the hardware names it.
struct GpuPrint {
  std::optional<std::string> uuid;
  std::optional<std::string> serial;
  std::optional<std::string> vbios_version;
  std::optional<std::string> pci_bus_id;  ///< canonical "0000:19:00.0"
  std::optional<uint32_t> pcie_max_gen;
  std::optional<uint32_t> pcie_max_width;
  /// The board's part number ("692-2G520-0200-000"); null where the board
  /// does not say (NOT_SUPPORTED) and in a record written before it was kept.
  std::optional<std::string> board_part_number;
  bool operator==(const GpuPrint&) const = default;
};

/// The driver stack a new job would load.
struct DriverPrint {
  std::optional<std::string> kernel_module_version;  ///< /sys/module/nvidia/version
  std::optional<std::string> nvml_driver_version;    ///< NVML's driver version
  std::optional<std::string> nvml_library_file;      ///< the libnvidia-ml file loaded
  std::optional<std::string> libcuda_version;        ///< the libcuda a new job would load
  std::optional<std::string> libcuda_file;
  bool operator==(const DriverPrint&) const = default;
};

/// ContainerPrint::id of a run outside any container.
inline constexpr const char* kHostNotContainer = "host";

/// Where this tool runs: a container (its id, from /proc/self/cgroup or
/// mountinfo) or the host.
struct ContainerPrint {
  /// The container's id (64 hex digits as the runtime names it), or "host".
  std::string id = kHostNotContainer;
  /// Its creation: the start of its first process (/proc/1 inside it).
  std::optional<int64_t> created_unix_s;
  std::optional<std::string> id_from;  ///< "/proc/self/cgroup: ...", "/proc/self/mountinfo: ..."
  /// The image it was created from, where the runtime leaves that readable
  /// inside (podman's /run/.containerenv; docker's /.dockerenv is empty):
  /// its name ("docker.io/lmsysorg/sglang:latest") and id (64 hex digits).
  /// Null when not said, and in a record written before they were kept.
  std::optional<std::string> image;
  std::optional<std::string> image_id;
  bool operator==(const ContainerPrint&) const = default;
};

/// The filesystem under a data path or an fstab entry.
struct MountPrint {
  std::string path;                     ///< "/data"
  std::optional<std::string> source;    ///< the mounted source ("/dev/nvme0n1p1")
  std::optional<std::string> device;    ///< its kernel name ("nvme0n1p1")
  std::optional<std::string> fs_type;   ///< "ext4"
  std::optional<std::string> expected;  ///< the configuration's line (fstab UUID=...)
  bool operator==(const MountPrint&) const = default;
};

/// A file of an installed package that no longer matches its RECORD hash.
struct ModifiedFile {
  std::string path;  ///< as RECORD names it ("sglang/srt/layers/logits_processor.py")
  std::optional<uint64_t> size_bytes;
  bool operator==(const ModifiedFile&) const = default;
};

/// One installed distribution (a *.dist-info directory).
struct PackagePrint {
  std::string name;     ///< "sglang"
  std::string version;  ///< "0.4.6"
  std::string site_packages;
  std::vector<ModifiedFile> modified;
  /// Whether every file RECORD hashes was checked (false: a bound was met,
  /// a file was unreadable; `notes` says which).
  bool fully_checked = false;
  std::vector<std::string> notes;
  bool operator==(const PackagePrint&) const = default;
};

/// The python environment of the GPU servers (one per site-packages).
struct PythonEnvPrint {
  std::string site_packages;
  std::vector<std::string> used_by;  ///< "SGLang (pid 3187)"
  std::vector<PackagePrint> packages;
  /// What was not looked at in it ("312 packages not checked against their
  /// RECORD: this run's 4194304 bytes of reading spent").
  std::vector<std::string> notes;
  bool operator==(const PythonEnvPrint&) const = default;
};

/// A systemd unit (system or user) that starts a GPU server: it starts it
/// again after every boot, whoever stopped it.
struct UnitPrint {
  std::string unit;                           ///< "sglang.service"
  std::string server;                         ///< the server's kind: "SGLang"
  std::optional<std::string> restart_policy;  ///< "Restart=always"
  bool auto_started = false;                  ///< within minutes of boot
  bool user_unit = false;                     ///< a user's manager's (systemctl --user)
  bool operator==(const UnitPrint&) const = default;
};

struct Fingerprint {
  int64_t taken_unix_s = 0;
  std::vector<GpuPrint> gpus;  ///< NVML index order
  DriverPrint driver;
  std::optional<std::string> kernel_release;
  std::optional<ContainerPrint> container;  ///< null: not read (a capture)
  std::vector<MountPrint> mounts;
  std::vector<PythonEnvPrint> python;
  /// The units that start the GPU servers running now; null: not read (a
  /// capture, a record written before they were kept).
  std::optional<std::vector<UnitPrint>> server_units;
  std::vector<std::string> notes;  ///< bounds met, what could not be read
  bool operator==(const Fingerprint&) const = default;
};

/// The parts read from the snapshot: GPUs, driver, kernel, mounts (of the
/// data paths and every configured mount). Container and python are the
/// collectors'.
Fingerprint fingerprint_of(const NodeSnapshot& s, int64_t taken_unix_s);

/// The package of `name` in any environment, or nullptr.
const PackagePrint* find_package(const Fingerprint& f, const std::string& name);

/// Bounds of a fingerprint as read (a node has a few GPUs, mounts and
/// environments; an environment some hundred packages).
inline constexpr size_t kMaxPrintItems = 4096;
inline constexpr size_t kMaxPrintTextBytes = 4096;
/// How a fingerprint's texts and lists are read (model/describe.h Within).
inline constexpr Within kPrintText{kMaxPrintTextBytes};
inline constexpr Within kPrintOptText{kMaxPrintTextBytes, KeyIs::kMayBeAbsent};
inline constexpr Within kPrintList{kMaxPrintItems};
inline constexpr Within kPrintTexts{kMaxPrintItems, KeyIs::kRequired, kMaxPrintTextBytes};

// Each type's fields once, in the order the record and the report write
// them (model/describe.h): a key that older records lack may be absent,
// any other missing key makes the record corrupt.
void describe(SelfOf<GpuPrint> auto& g, auto& v) {
  v("uuid", g.uuid, kPrintOptText);
  v("serial", g.serial, kPrintOptText);
  v("vbios_version", g.vbios_version, kPrintOptText);
  v("pci_bus_id", g.pci_bus_id, kPrintOptText);
  v("pcie_max_gen", g.pcie_max_gen);
  v("pcie_max_width", g.pcie_max_width);
  v("board_part_number", g.board_part_number, kPrintOptText);
}

void describe(SelfOf<DriverPrint> auto& d, auto& v) {
  v("kernel_module_version", d.kernel_module_version, kPrintOptText);
  v("nvml_driver_version", d.nvml_driver_version, kPrintOptText);
  v("nvml_library_file", d.nvml_library_file, kPrintOptText);
  v("libcuda_version", d.libcuda_version, kPrintOptText);
  v("libcuda_file", d.libcuda_file, kPrintOptText);
}

void describe(SelfOf<ContainerPrint> auto& c, auto& v) {
  v("id", c.id, kPrintText);
  v("created_unix_s", c.created_unix_s, PlausibleTime{});
  v("id_from", c.id_from, kPrintOptText);
  v("image", c.image, kPrintOptText);
  v("image_id", c.image_id, kPrintOptText);
}

void describe(SelfOf<MountPrint> auto& m, auto& v) {
  v("path", m.path, kPrintText);
  v("source", m.source, kPrintOptText);
  v("device", m.device, kPrintOptText);
  v("fs_type", m.fs_type, kPrintOptText);
  v("expected", m.expected, kPrintOptText);
}

void describe(SelfOf<ModifiedFile> auto& m, auto& v) {
  v("path", m.path, kPrintText);
  v("size_bytes", m.size_bytes);
}

/// site_packages: left out where it is the environment's (PythonEnvPrint).
void describe(SelfOf<PackagePrint> auto& p, auto& v) {
  v("name", p.name, kPrintText);
  v("version", p.version, kPrintText);
  v("site_packages", p.site_packages, kPrintText);
  v("modified", p.modified, Within{kMaxPrintItems, KeyIs::kOmittedWhenEmpty});
  v("fully_checked", p.fully_checked, Required{});
  v("notes", p.notes, Within{kMaxPrintItems, KeyIs::kOmittedWhenEmpty, kMaxPrintTextBytes});
}

void describe(SelfOf<PythonEnvPrint> auto& e, auto& v) {
  v("site_packages", e.site_packages, kPrintText);
  v("used_by", e.used_by, kPrintTexts);
  v("packages", e.packages, SharedKey{"site_packages", e.site_packages, kPrintList});
  v("notes", e.notes, Within{kMaxPrintItems, KeyIs::kMayBeAbsent, kMaxPrintTextBytes});
}

void describe(SelfOf<UnitPrint> auto& u, auto& v) {
  v("unit", u.unit, kPrintText);
  v("server", u.server, kPrintText);
  v("restart_policy", u.restart_policy, kPrintOptText);
  v("auto_started", u.auto_started, Required{});
  v("user_unit", u.user_unit, Required{});
}

void describe(SelfOf<Fingerprint> auto& f, auto& v) {
  v("taken_unix_s", f.taken_unix_s, PlausibleTime{});
  v("gpus", f.gpus, kPrintList);
  v("driver", f.driver, Required{});
  v("kernel_release", f.kernel_release, kPrintOptText);
  v("container", f.container, Required{});  // null: not read
  v("mounts", f.mounts, kPrintList);
  v("python", f.python, kPrintList);
  v("server_units", f.server_units, Within{kMaxPrintItems, KeyIs::kMayBeAbsent});
  v("notes", f.notes, kPrintTexts);
}

}  // namespace gt
