#include "sources/kernel_log/not_a_log.h"

#include <sys/sysmacros.h>

namespace gt {
namespace {

/// "1:11": a device number as ls -l shows it.
std::string device_number(dev_t rdev) {
  return std::to_string(major(rdev)) + ":" + std::to_string(minor(rdev));
}

}  // namespace

std::string file_kind_words(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "a regular file";
  if (S_ISCHR(st.st_mode)) return "a character device (" + device_number(st.st_rdev) + ")";
  if (S_ISBLK(st.st_mode)) return "a block device (" + device_number(st.st_rdev) + ")";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISDIR(st.st_mode)) return "a directory";
  return "not a regular file";
}

std::optional<std::string> not_a_regular_file(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return std::nullopt;
  return file_kind_words(st);
}

std::optional<std::string> not_a_kernel_log(const struct stat& st) {
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 11)
    return std::nullopt;  // /dev/kmsg
  return not_a_regular_file(st);
}

std::optional<std::string> refuse_non_regular_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // its reader says why
  if (std::optional<std::string> why = not_a_regular_file(st))
    return path + " is " + *why + ", not a regular file";
  return std::nullopt;
}

}  // namespace gt
