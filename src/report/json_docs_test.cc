// docs/json.md checked against the descriptions (model/describe.h): each
// described type's keys, in the order written, are one `{key, key, ...}`
// list of the document (every field documented), and no list of the
// document that is mostly one type's keys differs from them (no documented
// field missing from the type, none left out of the list).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/report.h"
#include "model/snapshot.h"

namespace gt {
namespace {

using Keys = std::vector<std::string>;

/// Collects a description's top-level keys (a group is one key).
struct KeyCollector {
  Keys keys;
  template <typename... A>
  void operator()(const char* key, A&&...) {
    keys.emplace_back(key);
  }
  template <typename G>
  void group(const char* key, G&&) {
    keys.emplace_back(key);
  }
  template <typename V>
  void constant(const char* key, const V&) {
    keys.emplace_back(key);
  }
};

/// Its keys, after those the writer puts before them (a plan step's
/// number) and before those it adds after them (a MIG device's PIDs).
template <Described T>
Keys keys_of(Keys leading = {}, const Keys& trailing = {}) {
  T t{};
  KeyCollector c;
  describe(t, c);
  leading.insert(leading.end(), c.keys.begin(), c.keys.end());
  leading.insert(leading.end(), trailing.begin(), trailing.end());
  return leading;
}

std::string doc_text() {
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/docs/json.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The leading identifier of one item of a list ("ports[]" and
/// "memory: [{...}]" give "ports" and "memory").
std::string item_key(const std::string& item) {
  size_t i = item.find_first_not_of(" `\n");
  const size_t start = i;
  while (i < item.size() && (std::isalnum(static_cast<unsigned char>(item[i])) || item[i] == '_'))
    ++i;
  return start == std::string::npos ? "" : item.substr(start, i - start);
}

/// Every `{...}` list of the document, its items' keys at its own level
/// (nested lists are lists of their own).
std::vector<Keys> doc_lists(const std::string& text) {
  std::vector<Keys> out;
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    Keys keys;
    std::string item;
    int depth = 0;
    for (size_t i = open + 1; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '{' || c == '[' || c == '(') ++depth;
      if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
        --depth;
      } else if (c == '}' || (c == ',' && depth == 0)) {
        keys.push_back(item_key(item));
        item.clear();
        if (c == '}') break;
        continue;
      }
      if (depth == 0) item += c;
    }
    out.push_back(std::move(keys));
  }
  return out;
}

size_t shared(const Keys& a, const Keys& b) {
  size_t n = 0;
  for (const std::string& k : a) n += std::find(b.begin(), b.end(), k) != b.end();
  return n;
}

std::string joined(const Keys& k) {
  std::string s = "{";
  for (const std::string& x : k) s += (s.size() > 1 ? ", " : "") + x;
  return s + "}";
}

void expect_documented(const char* type, const Keys& keys) {
  static const std::vector<Keys> lists = doc_lists(doc_text());
  const Keys* closest = nullptr;
  for (const Keys& l : lists) {
    if (l == keys) return;
    if (!closest || shared(l, keys) > shared(*closest, keys)) closest = &l;
  }
  ADD_FAILURE() << type << ": docs/json.md has no list " << joined(keys)
                << (closest ? "; the closest is " + joined(*closest) : std::string());
}

/// A list of the document that shares most of a type's keys is that
/// type's list, and must be it exactly.
void expect_no_stale_list(const char* type, const Keys& keys) {
  for (const Keys& l : doc_lists(doc_text()))
    if (l != keys && keys.size() >= 3 && shared(l, keys) * 4 >= keys.size() * 3 &&
        shared(l, keys) * 4 >= l.size() * 3)
      ADD_FAILURE() << type << ": docs/json.md lists " << joined(l) << ", the type writes "
                    << joined(keys);
}

#define GT_EXPECT_DOCUMENTED(T, ...)        \
  do {                                      \
    const Keys k = keys_of<T>(__VA_ARGS__); \
    expect_documented(#T, k);               \
    expect_no_stale_list(#T, k);            \
  } while (false)

TEST(JsonDocs, EveryDescribedTypeIsOneListOfTheDocument) {
  GT_EXPECT_DOCUMENTED(RdmaPort);
  GT_EXPECT_DOCUMENTED(RdmaDevice);
  GT_EXPECT_DOCUMENTED(GpuNic::ToNic);
  GT_EXPECT_DOCUMENTED(GpuNic);
  GT_EXPECT_DOCUMENTED(RdmaState);
  GT_EXPECT_DOCUMENTED(IncidentLine);
  GT_EXPECT_DOCUMENTED(MessageTally);
  GT_EXPECT_DOCUMENTED(PreviousBoot);
  GT_EXPECT_DOCUMENTED(CrashRecord);
  GT_EXPECT_DOCUMENTED(ClockState);
  GT_EXPECT_DOCUMENTED(NewestFile);
  GT_EXPECT_DOCUMENTED(Incident);
  GT_EXPECT_DOCUMENTED(SampleStats);
  GT_EXPECT_DOCUMENTED(ProcessOwner);
  GT_EXPECT_DOCUMENTED(GpuProcess);
  GT_EXPECT_DOCUMENTED(NvidiaSmiBinary);
  GT_EXPECT_DOCUMENTED(NumaNode);
  GT_EXPECT_DOCUMENTED(KernelLogEvent);
  GT_EXPECT_DOCUMENTED(KernelLog::Source);
  GT_EXPECT_DOCUMENTED(KernelLog);
  GT_EXPECT_DOCUMENTED(DiskUsage);
  GT_EXPECT_DOCUMENTED(KernelModule);
  GT_EXPECT_DOCUMENTED(StuckTask);
  GT_EXPECT_DOCUMENTED(NvidiaService);
  GT_EXPECT_DOCUMENTED(ContainerMount);
  GT_EXPECT_DOCUMENTED(ContainerInfo);
  GT_EXPECT_DOCUMENTED(ServerMember);
  GT_EXPECT_DOCUMENTED(ServerProcess);
  GT_EXPECT_DOCUMENTED(ServerGpu);
  GT_EXPECT_DOCUMENTED(Server);
  GT_EXPECT_DOCUMENTED(Subject);
  GT_EXPECT_DOCUMENTED(Finding);
  GT_EXPECT_DOCUMENTED(PlanStep, Keys{"step"});
  GT_EXPECT_DOCUMENTED(BundleReplay);
  GT_EXPECT_DOCUMENTED(MountInfo);
  GT_EXPECT_DOCUMENTED(DataCheck);
  GT_EXPECT_DOCUMENTED(ResolvedLibrary);
  GT_EXPECT_DOCUMENTED(LoaderContext);
  GT_EXPECT_DOCUMENTED(CudaDeviceNodes);
  GT_EXPECT_DOCUMENTED(CudaRuntimeBuild);
  GT_EXPECT_DOCUMENTED(ProcessLimits);
  GT_EXPECT_DOCUMENTED(MappedLibrary);
  GT_EXPECT_DOCUMENTED(ProcessMappings);
  GT_EXPECT_DOCUMENTED(CudaReadiness);
  GT_EXPECT_DOCUMENTED(AerErrorCount);
  GT_EXPECT_DOCUMENTED(AerCounter);
  GT_EXPECT_DOCUMENTED(AerTotals);
  GT_EXPECT_DOCUMENTED(AerCounters);
  GT_EXPECT_DOCUMENTED(PcieBridge);
  GT_EXPECT_DOCUMENTED(PciDevice);
  GT_EXPECT_DOCUMENTED(RecoveryState);
  GT_EXPECT_DOCUMENTED(RowRemapperHistogram);
  GT_EXPECT_DOCUMENTED(FabricInfo);
  GT_EXPECT_DOCUMENTED(NvLinkCounters);
  GT_EXPECT_DOCUMENTED(NvLink);
  GT_EXPECT_DOCUMENTED(GpuPeer);
  GT_EXPECT_DOCUMENTED(LimitTime);
  GT_EXPECT_DOCUMENTED(MigDevice, Keys{}, Keys{"process_pids"});
  GT_EXPECT_DOCUMENTED(GpuState);
  GT_EXPECT_DOCUMENTED(NvmlStatus);
  GT_EXPECT_DOCUMENTED(FabricManagerSigns);
  GT_EXPECT_DOCUMENTED(GpuPrint);
  GT_EXPECT_DOCUMENTED(DriverPrint);
  GT_EXPECT_DOCUMENTED(ContainerPrint);
  GT_EXPECT_DOCUMENTED(MountPrint);
  GT_EXPECT_DOCUMENTED(ModifiedFile);
  GT_EXPECT_DOCUMENTED(PackagePrint);
  GT_EXPECT_DOCUMENTED(PythonEnvPrint);
  GT_EXPECT_DOCUMENTED(UnitPrint);
  GT_EXPECT_DOCUMENTED(Fingerprint);
  GT_EXPECT_DOCUMENTED(HistoryBoot);
  GT_EXPECT_DOCUMENTED(FindingBoots);
  GT_EXPECT_DOCUMENTED(GpuRecord);
  GT_EXPECT_DOCUMENTED(AerRecord);
  GT_EXPECT_DOCUMENTED(GpuHistory, Keys{}, Keys{"fingerprint"});
}

// The report's top level: its own keys, then the snapshot's (whose schema
// keys are the report's).
TEST(JsonDocs, TheReportsTopLevelIsOneListOfTheDocument) {
  Keys keys{"schema", "schema_version", "verdict", "exit_code", "findings", "plan"};
  for (const std::string& k : keys_of<NodeSnapshot>())
    if (k != "schema" && k != "schema_version") keys.push_back(k);
  expect_documented("Report", keys);
  expect_no_stale_list("Report", keys);
}

// The checker itself: a list with a key more or less is no match, and a
// nested list is a list of its own.
TEST(JsonDocs, ListsAreReadAtTheirOwnLevel) {
  const std::vector<Keys> l =
      doc_lists("a `{pid, memory: [{gpu_index, memory_bytes}], rank}` and {x[], y}");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], (Keys{"pid", "memory", "rank"}));
  EXPECT_EQ(l[1], (Keys{"gpu_index", "memory_bytes"}));
  EXPECT_EQ(l[2], (Keys{"x", "y"}));
}

}  // namespace
}  // namespace gt
