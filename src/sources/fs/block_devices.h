// The block devices present (/sys/class/block) and the names udev gives
// them (/dev/disk/by-uuid, by-label, by-partuuid links), read through
// FsRoot so a fixture tree stands for a node. An fstab source such as
// "UUID=..." is resolved against them the way mount(8) does through
// libblkid's udev links, so a line that names a disk no longer in the
// machine (an old disk, replaced by a new NVMe) is told apart from a disk
// that is there but not mounted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/fs_root.h"

namespace gt {

struct BlockDevice {
  std::string name;                    ///< kernel name: "nvme1n1", "nvme1n1p1", "dm-0"
  bool partition = false;              ///< /sys/class/block/NAME/partition exists
  std::optional<uint64_t> size_bytes;  ///< size (512-byte sectors) * 512
  std::vector<std::string> uuids;      ///< filesystem UUIDs naming it (by-uuid)
  std::vector<std::string> labels;     ///< filesystem labels (by-label)
  std::vector<std::string> partuuids;  ///< partition UUIDs (by-partuuid)
  std::optional<std::string> dm_name;  ///< device-mapper name (/dev/mapper/NAME)
  bool has_holders = false;            ///< used by dm/md (holders/ not empty)
  bool has_partitions = false;         ///< a whole disk with partitions listed
};

struct BlockDevices {
  std::vector<BlockDevice> devices;
  /// What could not be read ("/sys/class/block not read: ...", "/dev/disk
  /// not present: UUID=, LABEL= and PARTUUID= sources are not resolved").
  std::vector<std::string> notes;
  bool by_links_read = false;  ///< /dev/disk/by-* could be listed
};

BlockDevices read_block_devices(const FsRoot& root);

/// How an fstab or unit source resolved.
struct SourceResolution {
  enum class Kind {
    kDevice,      ///< names a block device present: `device`
    kAbsent,      ///< a UUID=/LABEL=/PARTUUID= or /dev path that names no device present
    kUnknown,     ///< /dev/disk was not readable: cannot tell
    kNotADisk,    ///< a network share, tmpfs, a bind path...: nothing to resolve
    kUnknownForm  ///< "FOO=..." that mount(8) does not know: said, never guessed
  };
  Kind kind = Kind::kUnknown;
  std::string device;  ///< the kernel name when kDevice
};

/// Resolves "UUID=x", "LABEL=x", "PARTUUID=x", "/dev/disk/by-*/x",
/// "/dev/NAME", "/dev/mapper/NAME", "/dev/VG/LV", "/dev/md/NAME" against
/// `devs` (udev's links followed inside the root).
SourceResolution resolve_source(const FsRoot& root, const BlockDevices& devs,
                                const std::string& spec);

/// The kernel name of a mount table's source ("/dev/nvme0n1p1" ->
/// "nvme0n1p1", "/dev/mapper/vg-data" -> "dm-0", "/dev/md/raid0" ->
/// "md127"); nullopt when it is not a block device present.
std::optional<std::string> device_of_mount_source(const FsRoot& root, const BlockDevices& devs,
                                                  const std::string& source);

/// "nvme1n1 (3.8 TB, UUID 1234-..., LABEL data)".
std::string describe_device(const BlockDevice& d);

}  // namespace gt
