// Which files gpu-triage reads as input: a regular file, and for the
// kernel log also /dev/kmsg, known by its device number (character device
// 1:11) and not by its name. A FIFO, a socket, a tty, /dev/zero, a
// directory or a block device is refused before it is opened, so that no
// read can block or never end (the one-shot triage never hangs; watch
// never follows one).
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

namespace gt {

/// What `st` is, in words ("a FIFO", "a character device (1:5)").
std::string file_kind_words(const struct stat& st);

/// nullopt when `st` is /dev/kmsg (character device 1:11) or a regular
/// file; otherwise what it is, in words ("a character device (1:5)").
std::optional<std::string> not_a_kernel_log(const struct stat& st);

/// nullopt when `st` is a regular file; otherwise what it is, in words.
std::optional<std::string> not_a_regular_file(const struct stat& st);

/// For an input FILE the operator named: "FILE is a FIFO, not a regular
/// file" when it exists and is not a regular file, else nullopt (a FILE
/// that is missing or unreadable is said by its reader).
std::optional<std::string> refuse_non_regular_input(const std::string& path);

}  // namespace gt
