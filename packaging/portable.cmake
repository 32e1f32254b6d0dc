# make portable (-DGT_PORTABLE=ON): one x86-64 binary that needs only glibc.
# Every other library is linked in: Debian's static archives where they
# exist, header-only forms otherwise; libstdc++ and libgcc statically. glibc
# stays dynamic because NVML is loaded with dlopen (a static glibc cannot
# load a shared library reliably), and the binary is checked to need no
# GLIBC symbol version newer than 2.34 (scripts/check-portable).
#
# Each dependency, and what the portable form costs:
#   fmt        header-only (fmt::fmt-header-only; Debian has no libfmt.a):
#              none at run time, a slower compile.
#   zlib       libz.a.
#   OpenSSL    libcrypto.a only (SHA-256 manifests); libssl is not needed:
#              serve speaks plain HTTP.
#   ISA-L      Debian has no libisal.a: CRC-32 through zlib's crc32 (the same
#              CRC; ISA-L's carry-less multiply is faster on large files).
#   xxHash     libxxhash.a.
#   liblzma    liblzma.a (--kernel-log FILE.xz).
#   libzstd    libzstd.a (--kernel-log FILE.zst).
#   pugixml    libpugixml.a.
#   libarchive libarchive.a (gpu-triage bundle). Its pax writer shares an
#              object with the table of every format, so libxml2.a (xar),
#              ICU (libxml2's encodings; ~30 MB of data), nettle and libbz2
#              come along though a bundle uses only tar, gzip and zstd.
#   httplib    the header-only form in third_party/cpp-httplib (the same
#              0.11.4 source Debian's libcpp-httplib0.11 is built from), with
#              zlib but without brotli: a scraper that asks only for br gets
#              an uncompressed reply, as from any Prometheus exporter.
#   CLI11, nlohmann-json: header-only already.
# A library without a static archive is linked dynamically and named here
# (a warning at configure time); scripts/check-portable then fails naming it.

set(GT_PORTABLE_DYNAMIC "")

# gt_static_library(VAR NAME): VAR = lib<NAME>.a, else the shared library
# with a warning that names it.
function(gt_static_library var name)
  find_library(${var}_STATIC NAMES lib${name}.a)
  if(${var}_STATIC)
    set(${var} ${${var}_STATIC} PARENT_SCOPE)
    return()
  endif()
  find_library(${var}_SHARED NAMES ${name} REQUIRED)
  message(WARNING "portable: no static lib${name}.a: the binary will need "
                  "${${var}_SHARED} at run time (install the static archive)")
  set(${var} ${${var}_SHARED} PARENT_SCOPE)
  set(GT_PORTABLE_DYNAMIC ${GT_PORTABLE_DYNAMIC} ${name} PARENT_SCOPE)
endfunction()

gt_static_library(GT_PORTABLE_ARCHIVE archive)
gt_static_library(GT_PORTABLE_XML2 xml2)
gt_static_library(GT_PORTABLE_ICUUC icuuc)
gt_static_library(GT_PORTABLE_ICUDATA icudata)
gt_static_library(GT_PORTABLE_NETTLE nettle)
gt_static_library(GT_PORTABLE_BZ2 bz2)
gt_static_library(GT_PORTABLE_Z z)
gt_static_library(GT_PORTABLE_CRYPTO crypto)
gt_static_library(GT_PORTABLE_XXHASH xxhash)
gt_static_library(GT_PORTABLE_PUGIXML pugixml)
gt_static_library(GT_PORTABLE_LZMA lzma)
gt_static_library(GT_PORTABLE_ZSTD zstd)

add_library(gt_deps INTERFACE)
target_link_libraries(gt_deps INTERFACE fmt::fmt-header-only
  ${GT_PORTABLE_ARCHIVE} ${GT_PORTABLE_XML2} ${GT_PORTABLE_ICUUC} ${GT_PORTABLE_ICUDATA}
  ${GT_PORTABLE_NETTLE} ${GT_PORTABLE_BZ2} ${GT_PORTABLE_Z} ${GT_PORTABLE_CRYPTO} ${GT_PORTABLE_XXHASH} ${GT_PORTABLE_PUGIXML}
  ${GT_PORTABLE_LZMA} ${GT_PORTABLE_ZSTD} m dl)
target_include_directories(gt_deps INTERFACE
  ${CMAKE_SOURCE_DIR}/third_party/cpp-httplib)
target_compile_definitions(gt_deps INTERFACE GT_CRC32_ZLIB CPPHTTPLIB_ZLIB_SUPPORT)
add_link_options(-static-libstdc++ -static-libgcc)
# make deb packs this binary (its only dependency: libc6); cpack installs
# what `--target gpu-triage gt_manpage` built, not every test.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
if(GT_PORTABLE_DYNAMIC)
  message(WARNING "portable: linked dynamically: ${GT_PORTABLE_DYNAMIC}")
endif()
