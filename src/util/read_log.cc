#include "util/read_log.h"

namespace gt {

void ReadLog::add(ReadEntry e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!seen_.emplace(e.kind, e.path).second) return;
  if (e.bytes) {
    if (bytes_kept_ + e.bytes->size() > bytes_cap_) {
      e.bytes.reset();
      e.cut = true;
    } else {
      bytes_kept_ += e.bytes->size();
    }
  }
  entries_.push_back(std::move(e));
}

void ReadLog::file(const std::string& path, const std::string& bytes) {
  add({ReadEntry::Kind::kFile, path, bytes, false, std::nullopt});
}

void ReadLog::opened(const std::string& path) {
  add({ReadEntry::Kind::kOpened, path, std::nullopt, false, std::nullopt});
}

void ReadLog::folder(const std::string& path) {
  add({ReadEntry::Kind::kFolder, path, std::nullopt, false, std::nullopt});
}

void ReadLog::link(const std::string& path, const std::string& target) {
  add({ReadEntry::Kind::kLink, path, std::nullopt, false, target});
}

void ReadLog::stated(const std::string& path) {
  add({ReadEntry::Kind::kStated, path, std::nullopt, false, std::nullopt});
}

std::vector<ReadEntry> ReadLog::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_;
}

}  // namespace gt
