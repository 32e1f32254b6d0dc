#include "sources/smi_xml/smi_xml_reader.h"

#include <array>
#include <cstdlib>

#include "util/numeric.h"

namespace gt {

std::string smi_trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

SmiKind smi_classify(const std::string& v) {
  static const std::array<const char*, 9> kAbsent = {
      "N/A",
      "[N/A]",
      "Not Supported",
      "[Not Supported]",
      "Not Found",
      "None",
      "",
      "Requested functionality has been deprecated",
      "[Requested functionality has been deprecated]"};
  for (const char* a : kAbsent)
    if (v == a) return SmiKind::kAbsent;
  if (v.find("GPU is lost") != std::string::npos) return SmiKind::kLost;
  if (v.starts_with("[") || v == "Unknown Error" || v == "Insufficient Permissions")
    return SmiKind::kError;
  return SmiKind::kValue;
}

std::optional<std::string> GpuReader::text(const char* path) {
  pugi::xml_node e = n_.first_element_by_path(path);
  if (!e) return std::nullopt;
  std::string v = smi_trim(e.child_value());
  switch (smi_classify(v)) {
    case SmiKind::kValue:
      return v;
    case SmiKind::kAbsent:
      return std::nullopt;
    case SmiKind::kLost:
      g_.status = GpuStatus::kLost;
      g_.status_detail = std::string("nvidia-smi printed \"") + v + "\" for " + path;
      return std::nullopt;
    case SmiKind::kError:
      g_.errors.push_back(std::string(path) + ": " + v);
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> GpuReader::word(const char* path) {
  pugi::xml_node e = n_.first_element_by_path(path);
  if (e && smi_trim(e.child_value()) == "None") return std::string("None");
  return text(path);
}

std::optional<double> GpuReader::number(const char* path, double lo, double hi) {
  std::optional<std::string> t = text(path);
  if (!t) return std::nullopt;
  const char* b = t->c_str();
  char* end = nullptr;
  double v = std::strtod(b, &end);
  if (end == b) {
    g_.errors.push_back(std::string(path) + ": not a number: " + t->substr(0, 64));
    return std::nullopt;
  }
  std::optional<double> in_range = checked_double(v, lo, hi);
  if (!in_range) g_.errors.push_back(std::string(path) + ": out of range: " + t->substr(0, 64));
  return in_range;
}

std::optional<uint64_t> GpuReader::count(const char* path, double hi) {
  std::optional<double> v = number(path, 0, hi);
  return v ? checked_cast<uint64_t>(*v) : std::nullopt;
}

std::optional<uint32_t> GpuReader::u32(const char* path, double hi) {
  std::optional<double> v = number(path, 0, hi);
  return v ? checked_cast<uint32_t>(*v) : std::nullopt;
}

std::optional<int32_t> GpuReader::celsius(const char* path) {
  std::optional<double> v = number(path, kSmiMinTemperatureC, kSmiMaxTemperatureC);
  return v ? checked_cast<int32_t>(*v) : std::nullopt;
}

std::optional<uint64_t> GpuReader::mib(const char* path) {
  std::optional<uint64_t> v = count(path, kSmiMaxMemoryMiB);
  return v ? std::optional<uint64_t>(*v * kSmiMiB) : std::nullopt;
}

std::optional<bool> GpuReader::flag(const char* path) {
  std::optional<std::string> t = text(path);
  if (!t) return std::nullopt;
  if (*t == "Enabled" || *t == "Yes" || *t == "Active") return true;
  if (*t == "Disabled" || *t == "No" || *t == "Not Active") return false;
  return std::nullopt;
}

std::optional<bool> GpuReader::yes_no(const char* path) {
  std::optional<std::string> t = text(path);
  if (t == "Yes") return true;
  if (t == "No") return false;
  return std::nullopt;
}

std::optional<double> GpuReader::first_number(std::initializer_list<const char*> paths, double lo,
                                              double hi) {
  for (const char* p : paths)
    if (std::optional<double> v = number(p, lo, hi)) return v;
  return std::nullopt;
}

}  // namespace gt
