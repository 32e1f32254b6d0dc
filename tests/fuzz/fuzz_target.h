// A fuzz target's entry points. Under libFuzzer (make fuzz) every target is a
// program of its own and these are LLVMFuzzerTestOneInput and
// LLVMFuzzerInitialize. For the replay in make check, the targets are one
// program (GT_FUZZ_REPLAY_ALL: `fuzz_replay NAME INPUTS...`), each registered
// under its name: one link and one compile of the shared headers instead of
// one per target (they were a quarter of make check's build).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gt::fuzz {

using OneInput = int (*)(const uint8_t* data, size_t size);
using Initialize = int (*)(int* argc, char*** argv);

/// Called by the macros below before main(); they return 0.
int register_one_input(const char* name, OneInput one_input);
int register_initialize(const char* name, Initialize initialize);

}  // namespace gt::fuzz

#ifdef GT_FUZZ_REPLAY_ALL
#define GT_FUZZ_TARGET(name)                                              \
  static int gt_fuzz_one_input_##name(const uint8_t* data, size_t size);  \
  [[maybe_unused]] static const int gt_fuzz_one_input_registered_##name = \
      ::gt::fuzz::register_one_input(#name, gt_fuzz_one_input_##name);    \
  static int gt_fuzz_one_input_##name(const uint8_t* data, size_t size)
#define GT_FUZZ_INITIALIZE(name)                                           \
  static int gt_fuzz_initialize_##name(int* argc, char*** argv);           \
  [[maybe_unused]] static const int gt_fuzz_initialize_registered_##name = \
      ::gt::fuzz::register_initialize(#name, gt_fuzz_initialize_##name);   \
  static int gt_fuzz_initialize_##name([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv)
#else
#define GT_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#define GT_FUZZ_INITIALIZE(name) \
  extern "C" int LLVMFuzzerInitialize([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv)
#endif
