#include "history/state_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "history/record.h"
#include "report/json_codec.h"
#include "report/json_read.h"
#include "util/test_util.h"

namespace gt {
namespace state_file_test {

using J = nlohmann::ordered_json;

/// A fingerprint as the record holds it (its description, model/fingerprint.h).
J fingerprint_json(const Fingerprint& f) { return json_codec::write(f); }
Fingerprint fingerprint_from(const J& j) {
  Fingerprint f;
  json_read::read(j, "fingerprint", f);
  return f;
}

TEST(StateFile, WrittenRecordReadsBackTheSame) {
  TempTree t;
  t.write("/proc/sys/kernel/random/boot_id", "0f2c-boot\n");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->boot_id, "0f2c-boot");
  add_run(*h, 1700000000, {{"GPU-1", "gpu.xid.79"}});
  ASSERT_TRUE(write_history(*h));
  Result<GpuHistory> back = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(back);
  EXPECT_EQ(history_to_json(*back), history_to_json(*h));
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(
      std::filesystem::exists(t.path("/state/history.json.tmp-") + std::to_string(::getpid())));
}

/// A fingerprint with every part filled (a patched package, a container).
Fingerprint full_fingerprint(int64_t at) {
  Fingerprint f;
  f.taken_unix_s = at;
  f.gpus.push_back(
      {"GPU-1", "1654922003345", "96.00.99.00.01", "0000:19:00.0", 5, 16, "692-2G520-0200-000"});
  f.gpus.push_back({});
  f.driver = {"590.48.01", "590.48.01", "/usr/lib/libnvidia-ml.so.590.48.01", std::nullopt,
              std::nullopt};
  f.kernel_release = "6.8.0-51-generic";
  f.container = ContainerPrint{std::string(64, 'a'), at - 60, "/proc/self/cgroup: /docker/a",
                               "docker.io/lmsysorg/sglang:latest", std::string(64, 'b')};
  f.mounts.push_back({"/data", "/dev/vdb1", "vdb1", "ext4", "/etc/fstab:3: UUID=7f3c /data"});
  f.python.push_back({"/opt/venv/lib/python3.11/site-packages",
                      {"SGLang (pid 3187)"},
                      {{"sglang",
                        "0.4.6",
                        "/opt/venv/lib/python3.11/site-packages",
                        {{"sglang/srt/layers/logits_processor.py", 20411}},
                        true,
                        {}},
                       // Written in a few bytes: no modified files, no notes.
                       {"torch", "2.5.1", "/opt/venv/lib/python3.11/site-packages", {}, false, {}},
                       // Of another directory than its environment's: written.
                       {"local", "0.1", "/src/local", {}, false, {"no RECORD to check against"}}},
                      {"1 of 3 packages not checked against their RECORD"}});
  f.server_units = {{"sglang.service", "SGLang", "Restart=always", true, false}};
  f.notes.push_back("a note");
  return f;
}

TEST(StateFile, ARecordWithoutPartNumbersOrImageReadsThemAsNull) {
  // Records written before the board part number and the container's image
  // were kept: both unknown, not an error.
  const J old = J::parse(R"json({
    "taken_unix_s": 1700000000, "driver": {}, "kernel_release": null, "mounts": [],
    "python": [], "notes": [],
    "gpus": [{"uuid": "GPU-1", "serial": "1654922003345", "vbios_version": null,
              "pci_bus_id": "0000:19:00.0", "pcie_max_gen": 5, "pcie_max_width": 16}],
    "container": {"id": "host", "created_unix_s": null, "id_from": null}})json");
  const Fingerprint f = fingerprint_from(old);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].serial, "1654922003345");
  EXPECT_FALSE(f.gpus[0].board_part_number);
  ASSERT_TRUE(f.container);
  EXPECT_FALSE(f.container->image);
  EXPECT_FALSE(f.container->image_id);
  // Written back, both are there as null.
  const J again = fingerprint_json(f);
  EXPECT_TRUE(again["gpus"][0].contains("board_part_number"));
  EXPECT_TRUE(again["gpus"][0]["board_part_number"].is_null());
  EXPECT_TRUE(again["container"]["image_id"].is_null());
}

TEST(StateFile, APackageWrittenInFullBeforeReadsAsItsCompactForm) {
  // Records written before the compact form: each package's site_packages,
  // empty lists, and no notes of the environment.
  const J old = J::parse(R"json({
    "taken_unix_s": 1700000000, "gpus": [], "driver": {}, "kernel_release": null,
    "container": null, "mounts": [], "notes": [],
    "python": [{"site_packages": "/venv", "used_by": ["SGLang (pid 1)"], "packages": [
      {"name": "torch", "version": "2.5.1", "site_packages": "/venv", "modified": [],
       "fully_checked": true, "notes": []}]}]})json");
  const Fingerprint f = fingerprint_from(old);
  ASSERT_EQ(f.python.size(), 1u);
  EXPECT_TRUE(f.python[0].notes.empty());
  EXPECT_FALSE(f.server_units);  // not recorded then: not known, not none
  ASSERT_EQ(f.python[0].packages.size(), 1u);
  EXPECT_EQ(f.python[0].packages[0].site_packages, "/venv");
  EXPECT_EQ(fingerprint_from(J::parse(fingerprint_json(f).dump())), f);
  const std::string compact = fingerprint_json(f)["python"][0]["packages"][0].dump();
  EXPECT_EQ(compact, R"({"name":"torch","version":"2.5.1","fully_checked":true})");
}

TEST(StateFile, FingerprintsReadBackTheSame) {
  TempTree t;
  t.write("/proc/sys/kernel/random/boot_id", "0f2c-boot\n");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_TRUE(h);
  add_run(*h, 1700000000, {}, full_fingerprint(1700000000));
  add_run(*h, 1700000600, {}, full_fingerprint(1700000600));
  ASSERT_TRUE(write_history(*h));
  Result<GpuHistory> back = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->boots.size(), 1u);
  EXPECT_EQ(back->boots[0].first_fingerprint, full_fingerprint(1700000000));
  EXPECT_EQ(back->boots[0].last_fingerprint, full_fingerprint(1700000600));
  EXPECT_EQ(back->boots, h->boots);
  EXPECT_TRUE(warnings.empty());
}

TEST(StateFile, AVersion1RecordStillReads) {
  // tests/fixtures/history/version1.json: the format before fingerprints.
  TempTree t;
  std::ifstream in(std::string(GT_SOURCE_DIR) + "/tests/fixtures/history/version1.json");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_NE(text.str().find("\"version\": 1"), std::string::npos);
  t.write("/state/history.json", text.str());
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(h);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(h->boots.size(), 3u);
  EXPECT_FALSE(h->boots[0].first_fingerprint);
  EXPECT_EQ(h->gpus.size(), 2u);
  EXPECT_TRUE(h->aer.empty());  // written before AER totals were kept
}

TEST(StateFile, AerTotalsReadBackTheSame) {
  TempTree t;
  GpuHistory h;
  h.file = t.path("/state/history.json");
  h.aer = {{"0000:15:01.0", "0f2c-boot", 1700000000, {12, 0, 1}},
           {"0000:19:00.0", "0f2c-boot", 1700000000, {std::nullopt, std::nullopt, 0}}};
  std::filesystem::create_directories(t.path("/state"));
  ASSERT_TRUE(write_history(h));
  std::vector<std::string> warnings;
  Result<GpuHistory> back = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->aer, h.aer);
  EXPECT_TRUE(warnings.empty());
}

TEST(StateFile, AerTotalsThatAreNotCountsSetTheRecordAside) {
  for (const char* bad : {R"({"bus_id": "x", "boot_id": "b", "read_unix_s": 1700000000,
                              "correctable": -1, "nonfatal": null, "fatal": 0})",
                          R"({"bus_id": "x", "boot_id": "b", "read_unix_s": 1700000000,
                              "correctable": 1.5, "nonfatal": null, "fatal": 0})",
                          R"({"bus_id": "x", "boot_id": "b", "read_unix_s": -5,
                              "correctable": 1, "nonfatal": null, "fatal": 0})",
                          R"({"boot_id": "b", "read_unix_s": 1700000000})"}) {
    TempTree t;
    t.write("/state/history.json",
            std::string(R"({"schema": "gpu-triage/history", "version": 2, "boots": [],
                            "gpus": [], "aer": [)") +
                bad + "]}");
    std::vector<std::string> warnings;
    Result<GpuHistory> h = read_history(t.path("/state"), warnings);
    ASSERT_TRUE(h);
    EXPECT_TRUE(h->aer.empty()) << bad;
    ASSERT_EQ(warnings.size(), 1u) << bad;
    EXPECT_NE(warnings[0].find("set aside"), std::string::npos);
  }
}

TEST(StateFile, AFingerprintOverItsBoundsSetsTheRecordAside) {
  J f = fingerprint_json(full_fingerprint(1700000000));
  f["kernel_release"] = std::string(5000, 'x');
  nlohmann::ordered_json doc{{"schema", "gpu-triage/history"},
                             {"version", 2},
                             {"boots",
                              {{{"boot_id", "b"},
                                {"first_seen_unix_s", 1700000000},
                                {"last_seen_unix_s", 1700000000},
                                {"first_fingerprint", f}}}},
                             {"gpus", nlohmann::ordered_json::array()}};
  Result<GpuHistory> h = history_from_json(doc.dump());
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("first_fingerprint.kernel_release: longer than 4096 bytes"),
            std::string::npos)
      << h.error().message;
}

/// A record with every part: a boot with its fingerprints and said
/// changes, a GPU's finding, an AER total.
J full_record() {
  GpuHistory h;
  h.boots = {{"b1",
              1700000000,
              1700000600,
              full_fingerprint(1700000000),
              full_fingerprint(1700000600),
              {"change.driver node: the driver changed"}}};
  h.gpus = {{"GPU-1", {{"gpu.xid.79", {"b1"}}}}};
  h.aer = {{"0000:15:01.0", "b1", 1700000000, {12, std::nullopt, 1}}};
  return history_to_json(h);
}

// The state file's contract, kept now that it is read through the
// descriptions (model/history.h, model/fingerprint.h): a key every record
// had is required, a bound or a time out of range makes it corrupt.
TEST(StateFile, AMissingKeyOrABoundMetMakesTheRecordCorrupt) {
  const std::vector<std::pair<const char*, std::function<void(J&)>>> cases = {
      {"boots[0].boot_id: missing", [](J& j) { j["boots"][0].erase("boot_id"); }},
      {"boots[0].last_seen_unix_s: expected an integer time",
       [](J& j) { j["boots"][0]["last_seen_unix_s"] = 1.5; }},
      {"gpus[0].findings: missing", [](J& j) { j["gpus"][0].erase("findings"); }},
      {"findings[0].boot_ids: missing",
       [](J& j) { j["gpus"][0]["findings"][0].erase("boot_ids"); }},
      {"aer[0].read_unix_s: missing", [](J& j) { j["aer"][0].erase("read_unix_s"); }},
      {"first_fingerprint.driver: missing",
       [](J& j) { j["boots"][0]["first_fingerprint"].erase("driver"); }},
      {"first_fingerprint.container: missing",
       [](J& j) { j["boots"][0]["first_fingerprint"].erase("container"); }},
      {"container.id: missing",
       [](J& j) { j["boots"][0]["first_fingerprint"]["container"].erase("id"); }},
      {"packages[0].fully_checked: missing",
       [](J& j) {
         j["boots"][0]["first_fingerprint"]["python"][0]["packages"][0].erase("fully_checked");
       }},
      {"server_units[0].user_unit: missing",
       [](J& j) { j["boots"][0]["first_fingerprint"]["server_units"][0].erase("user_unit"); }},
      {"first_fingerprint.notes: missing",
       [](J& j) { j["boots"][0]["first_fingerprint"].erase("notes"); }},
      {"said_changes: expected an array", [](J& j) { j["boots"][0]["said_changes"] = nullptr; }},
      {"said_changes: 65 items, over the bound of 64",
       [](J& j) { j["boots"][0]["said_changes"] = std::vector<std::string>(65, "x"); }},
      {"boots[0].boot_id: longer than 256 bytes",
       [](J& j) { j["boots"][0]["boot_id"] = std::string(257, 'b'); }},
      {"used_by[0]: longer than 4096 bytes",
       [](J& j) {
         j["boots"][0]["last_fingerprint"]["python"][0]["used_by"][0] = std::string(4097, 'u');
       }},
      {"not a gpu-triage history (schema)", [](J& j) { j["schema"] = "gpu-triage/report"; }},
  };
  for (const auto& [why, change] : cases) {
    J doc = full_record();
    change(doc);
    Result<GpuHistory> h = history_from_json(doc.dump());
    ASSERT_FALSE(h) << why;
    EXPECT_NE(h.error().message.find(why), std::string::npos) << h.error().message;
  }
}

// What records written before a key was kept lack, and an absurd container
// start (unknown, never a year 1550575222), still read.
TEST(StateFile, KeysOlderRecordsLackAndAnAbsurdContainerStartStillRead) {
  J doc = full_record();
  doc.erase("aer");
  J& boot = doc["boots"][0];
  boot.erase("said_changes");
  boot.erase("first_fingerprint");
  J& print = boot["last_fingerprint"];
  print.erase("server_units");
  print["python"][0].erase("notes");
  print["gpus"][0].erase("board_part_number");
  print["container"]["created_unix_s"] = 48930000000000000;
  Result<GpuHistory> h = history_from_json(doc.dump());
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_TRUE(h->aer.empty());
  ASSERT_EQ(h->boots.size(), 1u);
  EXPECT_TRUE(h->boots[0].said_changes.empty());
  EXPECT_FALSE(h->boots[0].first_fingerprint);
  ASSERT_TRUE(h->boots[0].last_fingerprint);
  const Fingerprint& f = *h->boots[0].last_fingerprint;
  EXPECT_FALSE(f.server_units);
  EXPECT_TRUE(f.python[0].notes.empty());
  EXPECT_FALSE(f.gpus[0].board_part_number);
  EXPECT_FALSE(f.container->created_unix_s);
  // A package of its environment's directory, written without it, reads it.
  EXPECT_EQ(f.python[0].packages[0].site_packages, f.python[0].site_packages);
  EXPECT_EQ(f.python[0].packages[2].site_packages, "/src/local");
  doc["aer"] = nullptr;  // null: none kept
  EXPECT_TRUE(history_from_json(doc.dump()));
}

TEST(StateFile, ManyBootsWithFingerprintsStayBounded) {
  TempTree t;
  GpuHistory h;
  h.file = t.path("/history.json");
  for (int b = 0; b < 200; ++b) {
    h.boot_id = "boot-" + std::to_string(b);
    for (int run = 0; run < 3; ++run)
      add_run(h, 1700000000 + b * 1000 + run, {}, full_fingerprint(1700000000 + b * 1000 + run));
  }
  EXPECT_EQ(h.boots.size(), kMaxHistoryBoots);
  EXPECT_EQ(h.boots.back().boot_id, "boot-199");
  size_t lasts = 0, firsts = 0;
  for (const HistoryBoot& b : h.boots) {
    lasts += b.last_fingerprint.has_value();
    firsts += b.first_fingerprint.has_value();
  }
  EXPECT_EQ(lasts, kFingerprintBoots);
  EXPECT_EQ(firsts, 1u);  // this boot's
  EXPECT_EQ(h.boots.back().first_fingerprint, full_fingerprint(1700000000 + 199 * 1000));
  ASSERT_TRUE(write_history(h));
  EXPECT_LT(std::filesystem::file_size(h.file), 16u * 1024);
}

TEST(StateFile, CorruptFileIsSetAsideWithAWarning) {
  TempTree t;
  t.write("/state/history.json", "{\"schema\": \"gpu-triage/history\", \"boots\": [");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->boots.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("set aside as"), std::string::npos) << warnings[0];
  EXPECT_FALSE(std::filesystem::exists(t.path("/state/history.json")));
  int aside = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path("/state")))
    aside += e.path().filename().string().starts_with("history.json.corrupt-");
  EXPECT_EQ(aside, 1);
}

TEST(StateFile, NoBootIdOrNoDirectoryIsAnError) {
  TempTree t;
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("no boot id"), std::string::npos);
  t.write("/proc/sys/kernel/random/boot_id", "b\n");
  t.write("/file", "x");
  h = open_history(t.path("/file"), t.root(), warnings);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("not a directory"), std::string::npos);
}

std::string record_with_boot(const std::string& first_seen) {
  return "{\"schema\": \"gpu-triage/history\", \"version\": 1, \"boots\": [{\"boot_id\": \"b\", "
         "\"first_seen_unix_s\": " +
         first_seen + ", \"last_seen_unix_s\": 1700000000}], \"gpus\": []}";
}

size_t set_aside_files(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().starts_with("history.json.corrupt-");
  return n;
}

// A time must be an integer second in range: 1e300 read as int64 was
// undefined (and accepted); a negative or far-future one is not a time.
TEST(StateFile, TimesThatAreNotIntegersInRangeSetTheRecordAside) {
  for (const char* t : {"1e300", "1.5", "-1", "253402300800", "18446744073709551615", "\"1\""}) {
    TempTree tree;
    tree.write("/state/history.json", record_with_boot(t));
    std::vector<std::string> warnings;
    Result<GpuHistory> h = read_history(tree.path("/state"), warnings);
    ASSERT_TRUE(h) << t;
    EXPECT_TRUE(h->boots.empty()) << t;
    ASSERT_EQ(warnings.size(), 1u) << t;
    EXPECT_NE(warnings[0].find("set aside as"), std::string::npos) << warnings[0];
  }
  TempTree ok;
  ok.write("/state/history.json", record_with_boot("1699990000"));
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(ok.path("/state"), warnings);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->boots.size(), 1u);
  EXPECT_EQ(h->boots[0].first_seen_unix_s, 1699990000);
  EXPECT_TRUE(warnings.empty());
}

// A record of 170,000 boots (under the size cap; it cost every run 20-30 s
// in the old trim) is over the record's bounds: set aside with a note that
// says so, in one linear parse (make bench times it).
TEST(StateFile, ARecordOverItsBoundsIsSetAsideWithANote) {
  TempTree t;
  std::string text = "{\"schema\": \"gpu-triage/history\", \"version\": 1, \"boots\": [";
  for (int i = 0; i < 170000; ++i)
    text += (i ? "," : "") + std::string("{\"boot_id\":\"b") + std::to_string(i) +
            "\",\"first_seen_unix_s\":1,\"last_seen_unix_s\":2}";
  text += "], \"gpus\": []}";
  ASSERT_LT(text.size(), 16u << 20);
  t.write("/state/history.json", text);
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->boots.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("boots: 170000 items, over the bound of 1024"), std::string::npos)
      << warnings[0];
  EXPECT_EQ(set_aside_files(t.path("/state")), 1u);
}

// The boot id keys the record: one that is not printable ASCII is refused
// (said, not recorded); text in a record that is not UTF-8 still writes
// valid JSON (it used to abort the run).
TEST(StateFile, BootIdsThatAreNotUtf8NeverAbortTheWrite) {
  TempTree t;
  t.write("/proc/sys/kernel/random/boot_id", "\xff\xfe-boot\n");
  std::vector<std::string> warnings;
  Result<GpuHistory> h = open_history(t.path("/state"), t.root(), warnings);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("does not hold a boot id"), std::string::npos);
  GpuHistory g;
  g.file = t.path("/state/history.json");
  std::filesystem::create_directories(t.path("/state"));
  g.boot_id = "\xff\xfe";
  add_run(g, 1700000000, {{"GPU-\xe9", "gpu.xid.79"}});
  ASSERT_TRUE(write_history(g));
  Result<GpuHistory> back = read_history(t.path("/state"), warnings);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->boots.size(), 1u);
  EXPECT_EQ(back->boots[0].boot_id, "\xef\xbf\xbd\xef\xbf\xbd");  // U+FFFD twice
}

// Two processes sharing the state directory, 200 runs each, every run
// recording its own GPU: no record is lost (34 of 400 were without the lock).
TEST(StateFile, TwoConcurrentWritersLoseNoRecord) {
  TempTree t;
  std::filesystem::create_directories(t.path("/state"));
  const std::string dir = t.path("/state");
  constexpr int kRuns = 200;
  std::vector<pid_t> kids;
  for (int w = 0; w < 2; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int failed = 0;
      for (int i = 0; i < kRuns; ++i) {
        std::vector<std::string> warnings;
        const std::string gpu = "GPU-" + std::to_string(w) + "-" + std::to_string(i);
        Status s = update_history(
            dir,
            [&](GpuHistory& h) {
              h.boot_id = "boot-1";
              add_run(h, 1700000000 + i, {{gpu, "gpu.xid.79"}});
            },
            warnings);
        failed += !s || !warnings.empty();
        // A pause longer than the lock's 5 ms poll, as between real runs:
        // back to back, one writer re-took the lock before the other's
        // poll woke and starved it past kHistoryLockWait (ASan, load 9).
        std::this_thread::sleep_for(std::chrono::milliseconds(8));
      }
      ::_exit(failed == 0 ? 0 : 1);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> warnings;
  Result<GpuHistory> h = read_history(dir, warnings);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->gpus.size(), 2u * kRuns);
  EXPECT_TRUE(warnings.empty());
}

}  // namespace state_file_test
}  // namespace gt
