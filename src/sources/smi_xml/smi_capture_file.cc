// Reading a capture file whole (they are small: 122 KB for the largest
// real one; kMaxCaptureBytes bounds it) and handing the text to the pure parsers in
// sources/smi_xml.
#include "sources/smi_xml/smi_capture_file.h"

#include "sources/smi_xml/smi_text.h"
#include "util/read_capped.h"

namespace gt {

Status fill_from_smi_capture(const std::string& file, NodeSnapshot& snap) {
  // A capture even when it cannot be read: its failure is its own, never
  // this machine's missing driver.
  snap.source = Origin::kCapture;
  snap.capture_file = file == "-" ? std::string("(stdin)") : file;
  snap.nvml.library_path = "nvidia-smi output " + *snap.capture_file;
  Result<std::string> read = read_file_capped(file, kMaxCaptureBytes, "nvidia-smi captures");
  if (!read) return read.error();
  const std::string& text = read.value();
  if (Status s = fill_snapshot_from_smi_output(text, snap); !s) return s.error().with_context(file);
  snap.warnings.push_back(
      "from nvidia-smi output: the kernel log, disks, PCI bus and /proc of "
      "that node were not read");
  return ok_status();
}

}  // namespace gt
