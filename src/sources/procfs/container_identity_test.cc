#include "sources/procfs/container_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "sources/procfs/process_info.h"
#include "util/numeric.h"
#include "util/test_util.h"

namespace gt {
namespace container_identity_test {

constexpr const char* kId = "3f1a7c2b9d8e4f6a5b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a";

TEST(ContainerIdentity, HostWhenTheCgroupIsAUnit) {
  TempTree t;
  t.write("/proc/self/cgroup", "0::/system.slice/sglang.service\n");
  ContainerPrint c = read_container_identity(t.root()).value();
  EXPECT_EQ(c.id, "host");
  EXPECT_FALSE(c.created_unix_s);
}

TEST(ContainerIdentity, DockerFromCgroupWithItsCreation) {
  TempTree t;
  t.write("/proc/self/cgroup", std::string("0::/system.slice/docker-") + kId + ".scope\n");
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  fake_proc(t, 1, 0, "sh", "sh", 0, "/");  // started 1001 ticks after boot
  ContainerPrint c = read_container_identity(t.root()).value();
  EXPECT_EQ(c.id, kId);
  ASSERT_TRUE(c.id_from);
  EXPECT_NE(c.id_from->find("/proc/self/cgroup"), std::string::npos);
  ASSERT_TRUE(c.created_unix_s);
  EXPECT_EQ(*c.created_unix_s, 1767225600 + 1001 / ::sysconf(_SC_CLK_TCK));
}

// Issue 48: a PID 1 whose start ticks are absurd made the container
// "created 1550575222-01-00", a time no JSON reader takes back. A start
// outside 1970..9999 is unknown (null), as an unknown boot time is.
TEST(ContainerIdentity, AnAbsurdStartOfPid1IsAnUnknownCreation) {
  TempTree t;
  t.write("/proc/self/cgroup", std::string("0::/system.slice/docker-") + kId + ".scope\n");
  t.write("/proc/stat", "cpu 1 2 3\nbtime 1767225600\n");
  t.write("/proc/1/stat",
          "1 (sh) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 18446744073709551615 1000 100 0 "
          "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ContainerPrint c = read_container_identity(t.root()).value();
  EXPECT_EQ(c.id, kId);
  EXPECT_FALSE(c.created_unix_s) << *c.created_unix_s;
  EXPECT_EQ(start_unix_s(1767225600, 0), 1767225600);
  EXPECT_FALSE(start_unix_s(std::nullopt, 100));
  EXPECT_FALSE(start_unix_s(-1, 100));
  const uint64_t hz = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  EXPECT_EQ(start_unix_s(kMaxUnixS - 10, 10 * hz), kMaxUnixS);
  EXPECT_FALSE(start_unix_s(kMaxUnixS - 10, 11 * hz));
}

TEST(ContainerIdentity, FromMountinfoUnderAPrivateCgroupNamespace) {
  TempTree t;
  t.write("/proc/self/cgroup", "0::/\n");
  t.write("/proc/self/mountinfo", std::string("540 530 252:1 /var/lib/docker/containers/") + kId +
                                      "/hostname /etc/hostname rw,relatime - ext4 /dev/vda1 rw\n");
  ContainerPrint c = read_container_identity(t.root()).value();
  EXPECT_EQ(c.id, kId);
  EXPECT_EQ(c.id_from, "/proc/self/mountinfo");
}

TEST(ContainerIdentity, MountinfoIdMustBeWholeHex) {
  EXPECT_FALSE(container_id_in_mountinfo("/var/lib/docker/containers/abc/hostname"));
  EXPECT_FALSE(container_id_in_mountinfo(""));
}

constexpr const char* kImageId = "9b1c0e2f3a4d5b6c7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f";

/// podman's /run/.containerenv as it writes it (lines key="value").
std::string containerenv(const std::string& id, const std::string& image,
                         const std::string& image_id) {
  return "engine=\"podman-4.3.1\"\nname=\"sglang\"\nid=\"" + id + "\"\nimage=\"" + image +
         "\"\nimageid=\"" + image_id + "\"\nrootless=0\n";
}

/// The identity read from a tree whose /proc/self/cgroup is `cgroup` and
/// that holds `file` with `text` (/run/.containerenv, /.dockerenv).
std::optional<ContainerPrint> identity_with(const std::string& cgroup, const char* file,
                                            const std::string& text) {
  TempTree t;
  t.write("/proc/self/cgroup", cgroup);
  t.write(file, text);
  return read_container_identity(t.root());
}

const std::string kPodmanCgroup = std::string("0::/machine.slice/libpod-") + kId + ".scope\n";
const std::string kDockerCgroup = std::string("0::/system.slice/docker-") + kId + ".scope\n";

TEST(ContainerIdentity, PodmanImageFromContainerenv) {
  ContainerPrint c = identity_with(kPodmanCgroup, "/run/.containerenv",
                                   containerenv(kId, "docker.io/lmsysorg/sglang:latest", kImageId))
                         .value();
  EXPECT_EQ(c.id, kId);
  EXPECT_EQ(c.image, "docker.io/lmsysorg/sglang:latest");
  EXPECT_EQ(c.image_id, kImageId);
}

TEST(ContainerIdentity, ContainerenvNamesTheContainerNoOtherFileNames) {
  ContainerPrint c =
      identity_with("0::/\n", "/run/.containerenv", containerenv(kId, "quay.io/x/y:1", kImageId))
          .value();
  EXPECT_EQ(c.id, kId);
  EXPECT_EQ(c.id_from, "/run/.containerenv");
  EXPECT_EQ(c.image_id, kImageId);
}

TEST(ContainerIdentity, DockerenvIsEmptySoTheImageIsUnknown) {
  ContainerPrint c = identity_with(kDockerCgroup, "/.dockerenv", "").value();
  EXPECT_EQ(c.id, kId);
  EXPECT_FALSE(c.image);
  EXPECT_FALSE(c.image_id);
}

TEST(ContainerIdentity, ContainerenvOfAnotherContainerIsNotThisOnesImage) {
  ContainerPrint c = identity_with(kDockerCgroup, "/run/.containerenv",
                                   containerenv(kImageId, "quay.io/x/y:1", kImageId))
                         .value();
  EXPECT_EQ(c.id, kId);
  EXPECT_FALSE(c.image);
  EXPECT_FALSE(c.image_id);
}

TEST(ContainerIdentity, AMarkerWithoutAnIdIsAContainerNotKnownNeverTheHost) {
  // podman's .containerenv is empty in an unprivileged container; Docker's
  // .dockerenv always is: a container, whose id no file here names.
  EXPECT_FALSE(identity_with("0::/\n", "/run/.containerenv", "image=\"quay.io/x/y:1\"\n"));
  EXPECT_FALSE(identity_with("0::/\n", "/.dockerenv", ""));
  std::optional<ContainerPrint> host = identity_with("0::/system.slice/x.service\n", "/etc/x", "");
  ASSERT_TRUE(host);
  EXPECT_EQ(host->id, "host");
}

TEST(ContainerIdentity, ContainerenvMissingOrADirectoryIsAllNull) {
  TempTree t;
  ContainerEnv none = read_containerenv(t.root());
  EXPECT_FALSE(none.id || none.image || none.image_id);
  std::filesystem::create_directories(t.path("/run/.containerenv"));
  ContainerEnv dir = read_containerenv(t.root());
  EXPECT_FALSE(dir.id || dir.image || dir.image_id);
}

TEST(ContainerIdentity, OverLongContainerenvIsNotRead) {
  TempTree t;
  t.write("/run/.containerenv",
          containerenv(kId, "quay.io/x/y:1", kImageId) + std::string(kMaxContainerEnvBytes, '#'));
  ContainerEnv e = read_containerenv(t.root());
  EXPECT_FALSE(e.id || e.image || e.image_id);
  t.write("/run/.containerenv", containerenv(kId, "quay.io/x/y:1", kImageId));
  EXPECT_EQ(read_containerenv(t.root()).image_id, kImageId);  // the same, within the bound
}

TEST(ContainerIdentity, HostileContainerenvValuesAreNull) {
  // An image id that is not 64 lowercase hex digits.
  EXPECT_FALSE(parse_containerenv("imageid=\"abc\"\n").image_id);
  EXPECT_FALSE(parse_containerenv("imageid=\"" + std::string(64, 'g') + "\"\n").image_id);
  EXPECT_FALSE(parse_containerenv("imageid=\"" + std::string(64, 'A') + "\"\n").image_id);
  EXPECT_FALSE(parse_containerenv("imageid=\"" + std::string(65, 'a') + "\"\n").image_id);
  EXPECT_FALSE(parse_containerenv("imageid=" + std::string(64, 'a') + "\n").image_id);  // unquoted
  EXPECT_EQ(parse_containerenv("imageid=\"" + std::string(64, 'a') + "\"").image_id,
            std::string(64, 'a'));  // no final newline
  // An image name with control characters, an escape, a space or past the cap.
  EXPECT_FALSE(parse_containerenv("image=\"evil\x1b[2Jname\"\n").image);
  EXPECT_FALSE(parse_containerenv("image=\"a\\\"b\"\n").image);
  EXPECT_FALSE(parse_containerenv(std::string("image=\"a") + '\0' + "b\"\n").image);
  EXPECT_FALSE(parse_containerenv("image=\"a b\"\n").image);
  EXPECT_FALSE(parse_containerenv("image=\"caf\xc3\xa9:1\"\n").image);
  EXPECT_FALSE(parse_containerenv("image=\"\"\n").image);
  EXPECT_FALSE(
      parse_containerenv("image=\"" + std::string(kMaxImageNameBytes + 1, 'x') + "\"\n").image);
  EXPECT_EQ(parse_containerenv("image=\"" + std::string(kMaxImageNameBytes, 'x') + "\"\n").image,
            std::string(kMaxImageNameBytes, 'x'));
  // A CR line end is not part of a well-formed value.
  EXPECT_FALSE(parse_containerenv("image=\"a:1\"\r\n").image);
}

}  // namespace container_identity_test
}  // namespace gt
