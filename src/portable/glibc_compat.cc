// make portable only: three glibc functions newer than the binary's floor
// (GLIBC_2.34: Ubuntu 22.04, RHEL/Rocky 9) that the static GCC runtime calls
// because Debian built it against glibc 2.36:
//   _dl_find_object (2.35): libgcc's unwinder finds a frame's .eh_frame_hdr
//     with it on every thrown exception;
//   arc4random (2.36): libstdc++'s std::random_device (cpp-httplib seeds its
//     multipart boundaries with one); arc4random_buf (2.36): libarchive.a.
// The executable's own definitions satisfy those references at link time, so
// the binary asks glibc for neither; they are built on interfaces glibc has
// had for years (dl_iterate_phdr, dladdr1, getrandom), as libgcc itself did
// before 2.35. scripts/check-portable checks the versions the binary needs.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

struct Search {
  uintptr_t address;
  dl_find_object* result;
  bool found;
};

// The loaded object whose PT_LOAD segments contain the address: its mapping
// and its PT_GNU_EH_FRAME segment, as glibc's _dl_find_object reports them.
int visit(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  uintptr_t lowest = UINTPTR_MAX, highest = 0, eh_frame = 0;
  bool inside = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + p.p_vaddr;
    if (p.p_type == PT_LOAD) {
      lowest = std::min(lowest, begin);
      highest = std::max(highest, begin + p.p_memsz);
      if (s->address >= begin && s->address - begin < p.p_memsz) inside = true;
    } else if (p.p_type == PT_GNU_EH_FRAME) {
      eh_frame = begin;
    }
  }
  if (!inside) return 0;
  std::memset(s->result, 0, sizeof *s->result);
  s->result->dlfo_map_start = reinterpret_cast<void*>(lowest);
  s->result->dlfo_map_end = reinterpret_cast<void*>(highest);
  s->result->dlfo_eh_frame = reinterpret_cast<void*>(eh_frame);
  s->found = true;
  return 1;
}

}  // namespace

extern "C" int _dl_find_object(void* address, dl_find_object* result) {
  Search s{reinterpret_cast<uintptr_t>(address), result, false};
  dl_iterate_phdr(visit, &s);
  if (!s.found) return -1;
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP))
    result->dlfo_link_map = map;
  return 0;
}

// glibc's arc4random_buf never fails: it aborts when the kernel gives no
// randomness, and so does this one. libarchive.a calls it (archive_random).
extern "C" void arc4random_buf(void* buffer, size_t size) {
  auto* out = static_cast<unsigned char*>(buffer);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = getrandom(out + done, size - done, 0);
    if (n > 0)
      done += static_cast<size_t>(n);
    else if (n < 0 && errno != EINTR)
      break;
  }
  if (done == size) return;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  while (fd >= 0 && done < size) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (fd >= 0) ::close(fd);
  if (done != size) std::abort();
}

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  arc4random_buf(&value, sizeof value);
  return value;
}
