// make bench (bench/data_bench.sh): the floor of quick data mode. Lists DIR
// as the scan does (readdir, d_type, each directory held open), then on the
// scan's pool of threads (util/parallel.h) does for each regular file only
// what any check of a file's tail must: open, fstat, pread of its last
// 64 KiB, close. No format is parsed. Prints how many files and bytes it
// read, so the work cannot be skipped.
//   gt_data_floor DIR
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "util/parallel.h"

namespace {

struct Entry {
  int dirfd;
  std::string name;
};

// Every regular file under dirfd (closed here unless it holds a file).
void list(int dirfd, std::vector<Entry>& out, std::vector<int>& held) {
  DIR* d = fdopendir(dirfd);
  if (d == nullptr) {
    ::close(dirfd);
    return;
  }
  int keep = -1;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (e->d_type == DT_DIR) {
      int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub >= 0) list(sub, out, held);
    } else if (e->d_type == DT_REG) {
      if (keep < 0) held.push_back(keep = fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
      out.push_back({keep, e->d_name});
    }
  }
  closedir(d);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gt_data_floor DIR\n");
    return 2;
  }
  int root = ::open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    std::perror(argv[1]);
    return 1;
  }
  std::vector<Entry> files;
  std::vector<int> held;
  list(root, files, held);
  std::atomic<uint64_t> bytes{0}, failed{0};
  gt::on_pool(files.size(), 0, [&](size_t i, std::vector<uint8_t>& buffer) {
    constexpr size_t kTail = 64 << 10;
    buffer.resize(kTail);
    int fd = openat(files[i].dirfd, files[i].name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      failed++;
      if (fd >= 0) ::close(fd);
      return;
    }
    const size_t n = st.st_size < off_t(kTail) ? size_t(st.st_size) : kTail;
    ssize_t got = pread(fd, buffer.data(), n, st.st_size - off_t(n));
    if (got < 0) failed++;
    bytes += got > 0 ? uint64_t(got) : 0;
    ::close(fd);
  });
  for (int fd : held) ::close(fd);
  std::printf("%zu files, %llu bytes of tails read, %llu failed\n", files.size(),
              static_cast<unsigned long long>(bytes.load()),
              static_cast<unsigned long long>(failed.load()));
  return failed ? 1 : 0;
}
