# Install rules and the Debian package (`make deb`: cpack -G DEB in the
# build directory). Everything comes from this tree and Debian's archive.
include(GNUInstallDirs)

install(TARGETS gpu-triage RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Debian wants man pages gzip'd (-n: no timestamp, reproducible).
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/gpu-triage.1.gz
  COMMAND gzip -9nc ${CMAKE_SOURCE_DIR}/docs/gpu-triage.1 > ${CMAKE_BINARY_DIR}/gpu-triage.1.gz
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/gpu-triage.1
  COMMENT "gzip gpu-triage.1")
add_custom_target(gt_manpage ALL DEPENDS ${CMAKE_BINARY_DIR}/gpu-triage.1.gz)
install(FILES ${CMAKE_BINARY_DIR}/gpu-triage.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES packaging/bash-completion/gpu-triage
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES packaging/systemd/gpu-triage-serve.service packaging/systemd/gpu-triage-record.service
              packaging/systemd/gpu-triage-record.timer DESTINATION lib/systemd/system)
install(FILES packaging/default/gpu-triage-serve DESTINATION /etc/default)
install(DIRECTORY contrib/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpu-triage/contrib
        USE_SOURCE_PERMISSIONS)
install(FILES README.md docs/fleet-integration.md docs/fleet.md docs/free.md docs/data.md
        docs/checks.md docs/json.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpu-triage)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU node triage: are the GPUs alive, what holds them, what to do first")
set(CPACK_PACKAGE_DESCRIPTION
    "gpu-triage reads every NVIDIA GPU through NVML (loaded at run time, never hanging), the PCI\n bus, /proc and the kernel log, and ends in a verdict, an exit code and a plan. It runs as a\n Prometheus exporter (gpu-triage serve), writes node_exporter textfiles, and ships plugins\n for Node Problem Detector, LBNL NHC and Slurm in /usr/share/gpu-triage/contrib.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "gpu-triage maintainers <gpu-triage@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# dpkg-shlibdeps: libc6 alone for make deb (the portable build,
# packaging/portable.cmake); libc6, libstdc++6, libcpp-httplib0.11... when
# packed from the normal build.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus-node-exporter, bash-completion")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles
    ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
    ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
    ${CMAKE_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
