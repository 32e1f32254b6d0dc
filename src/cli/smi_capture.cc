// Reading a capture file whole (they are small: 122 KB for the largest
// real one) and handing the text to the pure parsers in sources/smi_xml.
#include "cli/smi_capture.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "sources/smi_xml/smi_text.h"

namespace gt {

Status fill_from_smi_capture(const std::string& file, NodeSnapshot& snap) {
  std::string text;
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error{ErrorKind::kNotFound, "cannot read " + file};
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  snap.source = "nvidia-smi-capture";
  snap.nvml.library_path = "nvidia-smi output " + (file == "-" ? std::string("(stdin)") : file);
  if (Status s = fill_snapshot_from_smi_output(text, snap); !s) return s.error().with_context(file);
  snap.warnings.push_back(
      "from nvidia-smi output: the kernel log, disks, PCI bus and /proc of "
      "that node were not read");
  return ok_status();
}

}  // namespace gt
