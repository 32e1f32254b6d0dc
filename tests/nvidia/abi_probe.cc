// Prints the ABI of every item in abi_items.def as "KEY<TAB>VALUE" lines,
// for tests/nvidia/abi_compare.py.
//
// Built twice from this one source, never in one translation unit with both
// headers (they declare the same names):
//   ours   (GT_ABI_OURS): src/sources/nvml/nvml_types.h, built by CMake as
//          gt_abi_probe. Also prints which items each NVIDIA header should
//          have ("in1108"/"in1204" lines) and every symbol NvmlLibrary::open
//          asks for, with the signature the tool calls it through ("wanted"
//          lines), from the library named by argv[1] (the mock).
//   theirs (GT_ABI_HEADER=1108 or 1204): NVIDIA's nvml.h, compiled by
//          tests/nvidia/abi_conformance.sh at test time, once the packages
//          are in the cache.
#if defined(GT_ABI_OURS)
#include "sources/nvml/nvml_api.h"
#else
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>
#endif

#include <cstddef>
#include <cstdio>
#include <string>

#include "sources/nvml/nvml_abi_desc.h"

namespace {

void line(const std::string& key, const std::string& value) {
  std::printf("%s\t%s\n", key.c_str(), value.c_str());
}

std::string struct_value(size_t size, size_t align) {
  return "size=" + std::to_string(size) + " align=" + std::to_string(align);
}

std::string field_value(size_t offset, const std::string& type) {
  return "offset=" + std::to_string(offset) + " type=" + type;
}

}  // namespace

#if defined(GT_ABI_OURS)
#define GT_SIDE(o, t) o
#else
#define GT_SIDE(o, t) t
#endif

// Values of every item the header being probed has.
static void print_values() {
#define GT_STRUCT(o, t) \
  line("struct " #o, struct_value(sizeof(GT_SIDE(o, t)), alignof(GT_SIDE(o, t))));
#define GT_FIELD(o, t, f)                                          \
  line("field " #o "." #f, field_value(offsetof(GT_SIDE(o, t), f), \
                                       gt::abi::describe_type<decltype(GT_SIDE(o, t)::f)>()));
#define GT_CONST(o, t) line("const " #o, std::to_string(static_cast<long long>(GT_SIDE(o, t))));
#if defined(GT_ABI_OURS)
#define GT_FN(s) line("listed fn " #s, "");
#else
#define GT_FN(s) line("fn " #s, gt::abi::describe_type<decltype(s)>());
#endif
#if defined(GT_ABI_OURS)
#define GT_ABI_HEADER 9999
#endif
#include "abi_items.def"
#undef GT_STRUCT
#undef GT_FIELD
#undef GT_CONST
#undef GT_FN
}

#if defined(GT_ABI_OURS)
// Which items NVIDIA's header of each version is expected to have.
#define GT_STRUCT(o, t) line(tag, "struct " #o);
#define GT_FIELD(o, t, f) line(tag, "field " #o "." #f);
#define GT_CONST(o, t) line(tag, "const " #o);
#define GT_FN(s) line(tag, "fn " #s);
static void print_in_1108() {
  const char* tag = "in1108";
#undef GT_ABI_HEADER
#define GT_ABI_HEADER 1108
#include "abi_items.def"
}
static void print_in_1204() {
  const char* tag = "in1204";
#undef GT_ABI_HEADER
#define GT_ABI_HEADER 1204
#include "abi_items.def"
}

static int print_wanted(const char* library) {
  auto lib = gt::NvmlLibrary::open(library);
  if (!lib) {
    std::fprintf(stderr, "abi_probe: %s\n", lib.error().message.c_str());
    return 1;
  }
  for (const gt::NvmlSymbol& s : (*lib)->wanted())
    line("wanted " + s.name, s.signature + (s.required ? " required" : " optional"));
  return 0;
}
#endif

int main(int argc, char** argv) {
  print_values();
#if defined(GT_ABI_OURS)
  print_in_1108();
  print_in_1204();
  if (argc != 2) {
    std::fprintf(stderr, "usage: gt_abi_probe LIBNVIDIA-ML\n");
    return 2;
  }
  return print_wanted(argv[1]);
#else
  (void)argc;
  (void)argv;
  return 0;
#endif
}
