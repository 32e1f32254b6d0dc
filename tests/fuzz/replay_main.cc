// Replays inputs through a fuzz target without libFuzzer: the same entry
// point that `make fuzz` explores, run over every file named on the command
// line (folders are walked). `make check` runs each target over its seed
// corpus and its regression inputs, so the run is deterministic: a crash, a
// sanitizer report or a hang fails the test.
//   fuzz_NAME INPUTS...          a target built as a program of its own
//   fuzz_replay NAME INPUTS...   the targets built as one program
//                                (GT_FUZZ_REPLAY_ALL, fuzz_target.h)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz_target.h"

#ifndef GT_FUZZ_REPLAY_ALL
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
#endif

namespace gt::fuzz {
namespace {

struct Entry {
  OneInput one_input = nullptr;
  Initialize initialize = nullptr;
};

// Filled before main() by the targets' static registrations: a function's
// static, so it exists before the first of them runs.
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> targets;
  return targets;
}

std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& p) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(p)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(p))
      if (e.is_regular_file()) out.push_back(e.path());
  } else {
    out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int replay(OneInput one_input, int first, int argc, char** argv) {
  size_t replayed = 0;
  for (int i = first; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 1;
    }
    for (const auto& path : inputs_under(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
      if (!in.eof() && in.fail()) {
        std::fprintf(stderr, "replay: %s: cannot read\n", path.c_str());
        return 1;
      }
      std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
      one_input(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 1;
  }
  std::printf("replayed %zu inputs\n", replayed);
  return 0;
}

}  // namespace

int register_one_input(const char* name, OneInput one_input) {
  registry()[name].one_input = one_input;
  return 0;
}

int register_initialize(const char* name, Initialize initialize) {
  registry()[name].initialize = initialize;
  return 0;
}

}  // namespace gt::fuzz

int main(int argc, char** argv) {
#ifdef GT_FUZZ_REPLAY_ALL
  const auto& targets = gt::fuzz::registry();
  auto t = argc > 1 ? targets.find(argv[1]) : targets.end();
  if (t == targets.end() || !t->second.one_input) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET INPUTS... (targets:");
    for (const auto& [name, entry] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, ")\n");
    return 2;
  }
  if (t->second.initialize) t->second.initialize(&argc, &argv);
  return gt::fuzz::replay(t->second.one_input, 2, argc, argv);
#else
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  return gt::fuzz::replay(LLVMFuzzerTestOneInput, 1, argc, argv);
#endif
}
