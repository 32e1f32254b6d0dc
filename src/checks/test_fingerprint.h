// The story's fingerprint before the crash, built in code, for the unit
// tests of the comparison and of the change checks.
#pragma once

#include <string>

#include "model/fingerprint.h"

namespace gt {

inline const std::string kStoryOldContainer(64, 'a');
inline const std::string kStoryNewContainer(64, 'b');

/// The story before the crash: patched sglang in container kStoryOldContainer, /data on vdb1.
inline Fingerprint story_fingerprint() {
  Fingerprint f;
  f.taken_unix_s = 1767225000;
  f.gpus = {{"GPU-0", "1000", "96.00.99.00.01", "0000:18:00.0", 5, 16},
            {"GPU-1", "1001", "96.00.99.00.01", "0000:2a:00.0", 5, 16}};
  f.driver.kernel_module_version = "590.48.01";
  f.kernel_release = "6.8.0-51-generic";
  f.container = ContainerPrint{kStoryOldContainer, 1767000000, "/proc/self/cgroup"};
  f.mounts = {{"/data", "/dev/vdb1", "vdb1", "ext4", "/etc/fstab:3: UUID=7f3c /data"}};
  f.python = {{"/venv/site-packages",
               {"SGLang (pid 3187)"},
               {{"sglang",
                 "0.4.6",
                 "/venv/site-packages",
                 {{"sglang/srt/model_executor/model_runner.py", 100},
                  {"sglang/srt/layers/logits_processor.py", 200}},
                 true,
                 {}},
                {"torch", "2.7.0", "/venv/site-packages", {}, true, {}}}}};
  return f;
}

}  // namespace gt
