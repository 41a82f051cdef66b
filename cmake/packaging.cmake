# Install rules and the Debian package (included last by the top-level CMakeLists.txt):
# binaries in bin, the systemd units in lib/systemd/system (generated with the installed
# paths), /etc/wfod's two conffiles, docs in share/doc/wfod; `cpack -G DEB` builds
# wfod_<version>_amd64.deb from the same rules (docs/operations.md "Installing";
# tools/check-package.sh installs, checks and purges it in CI).
include(GNUInstallDirs)

# --- Binaries: every program a user runs (wfo-replay / wfo-sub / wfo-proxy exist where cppzmq
# does). ---
set(WFOD_INSTALLED_PROGRAMS wfod wfo)
foreach(tool wfo-replay wfo-sub wfo-proxy)
  if(TARGET ${tool})
    list(APPEND WFOD_INSTALLED_PROGRAMS ${tool})
  endif()
endforeach()
install(TARGETS ${WFOD_INSTALLED_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# --- systemd units, pointing at the installed binary and config folder. The paths are this
# configure step's prefix (the presets use /usr, the package's): `cmake --install --prefix`
# cannot rewrite them, so configure with -DCMAKE_INSTALL_PREFIX to install elsewhere. ---
set(WFOD_UNIT_DIR ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
set(WFOD_BINARY ${CMAKE_INSTALL_FULL_BINDIR}/wfod)
set(WFOD_CONFIG_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/wfod)
if(WFOD_CUDA_ENABLED)
  # The GPU's device nodes must be visible, which PrivateDevices=yes would prevent: instead
  # the device cgroup admits the pseudo devices and NVIDIA's character devices only.
  set(WFOD_UNIT_DEVICES [=[# The CUDA build: the GPU's device nodes are visible (PrivateDevices=yes would hide
# them), and the device cgroup admits only the pseudo devices (/dev/null, /dev/zero,
# /dev/urandom, ...) besides them.
DevicePolicy=closed
# Every NVIDIA character device (/proc/devices names nvidia-frontend, nvidia-uvm, ...):
# /dev/nvidiactl, /dev/nvidia0.., /dev/nvidia-uvm.
DeviceAllow=char-nvidia* rw]=])
else()
  set(WFOD_UNIT_DEVICES [=[# Only pseudo devices (/dev/null, /dev/zero, /dev/urandom) are visible (the CPU build).
PrivateDevices=yes]=])
endif()
foreach(unit wfod.service wfod@.service)
  configure_file(${PROJECT_SOURCE_DIR}/systemd/${unit}.in ${PROJECT_BINARY_DIR}/systemd/${unit}
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/systemd/${unit} DESTINATION ${WFOD_UNIT_DIR})
endforeach()
# wfo-proxy's unit (installed, not enabled: docs/operations.md "Sharding").
if(TARGET wfo-proxy)
  set(WFOD_PROXY_BINARY ${CMAKE_INSTALL_FULL_BINDIR}/wfo-proxy)
  configure_file(${PROJECT_SOURCE_DIR}/systemd/wfo-proxy.service.in
                 ${PROJECT_BINARY_DIR}/systemd/wfo-proxy.service @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/systemd/wfo-proxy.service DESTINATION ${WFOD_UNIT_DIR})
endif()

# --- /etc/wfod: the example (every key, each with its default) and the file the unit runs,
# which starts empty (comments only): the operator writes it. Both are conffiles in the
# package: dpkg keeps an operator's edits across upgrades and removal, purge deletes them. ---
install(FILES ${PROJECT_SOURCE_DIR}/config/wfod.example.toml
              ${PROJECT_SOURCE_DIR}/packaging/wfod.toml
        DESTINATION ${WFOD_CONFIG_DIR})

# --- Documentation. ---
file(GLOB WFOD_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${WFOD_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- The .deb (CPack DEB). ---
if(WFOD_CUDA_ENABLED)
  set(WFOD_BUILD_KIND "CUDA build")
else()
  set(WFOD_BUILD_KIND "CPU build")
endif()
set(CPACK_PACKAGE_NAME wfod)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "wfod")
set(CPACK_PACKAGE_CONTACT "wfod maintainers <maintainers@users.noreply.a-seed-5f949c8a.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "streaming walk-forward optimiser daemon (${WFOD_BUILD_KIND})")
# The description says which build this is; CPack turns each newline into a continuation
# line of the control file's Description.
if(WFOD_CUDA_ENABLED)
  set(WFOD_SASS "")
  set(WFOD_PTX "")
  foreach(arch IN LISTS WFOD_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "-.*" "" number "${arch}")
    if(NOT arch MATCHES "-virtual$")
      string(APPEND WFOD_SASS " sm_${number}")
    endif()
    if(NOT arch MATCHES "-real$")
      string(APPEND WFOD_PTX " compute_${number}")
    endif()
  endforeach()
  if(WFOD_SASS STREQUAL "")
    set(WFOD_CODE_TEXT "with PTX only (for${WFOD_PTX}, compiled by the driver at start)")
  elseif(WFOD_PTX STREQUAL "")
    set(WFOD_CODE_TEXT "with machine code for${WFOD_SASS}")
  else()
    set(WFOD_CODE_TEXT "with machine code for${WFOD_SASS}
and PTX for${WFOD_PTX}")
  endif()
  set(WFOD_BUILD_TEXT "This is the CUDA build: the cuda backend, ${WFOD_CODE_TEXT}, runs when an
NVIDIA GPU it supports and a recent driver are present (docs/operations.md \"GPU build\");
otherwise the CPU backend runs.")
else()
  set(WFOD_BUILD_TEXT "This is the CPU build: the cpu and cpu_ref backends, no cuda backend.")
endif()
set(CPACK_PACKAGE_DESCRIPTION
    "wfod keeps the parameters of live technical strategies fresh: it subscribes to
bar feeds (ZeroMQ), re-optimises each configured strategy over its parameter
grid every k bars and publishes the winning parameters. With wfo (sweeps,
walk-forward analysis, HTML reports), wfo-replay, wfo-sub, wfo-proxy (one
subscription endpoint for several shards) and the C++ client headers.
${WFOD_BUILD_TEXT}")
set(CPACK_GENERATOR DEB)
# Install with DESTDIR into the staging tree, so /etc (an absolute destination) lands in
# the package and never on the build machine.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # wfod_<version>_<arch>.deb
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Run-time libraries from the binaries themselves (dpkg-shlibdeps: libzmq5, libsystemd0,
# libstdc++6, ...); the maintainer scripts use deb-systemd-helper.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "init-system-helpers (>= 1.54~)")
# The C++ client's headers (find_package(wfod_client)) need these to compile against.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cppzmq-dev, nlohmann-json3-dev")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# conffiles names the paths this configure step installs /etc/wfod's files to.
configure_file(${PROJECT_SOURCE_DIR}/packaging/deb/conffiles.in
               ${PROJECT_BINARY_DIR}/packaging/deb/conffiles @ONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_BINARY_DIR}/packaging/deb/conffiles ${PROJECT_SOURCE_DIR}/packaging/deb/postinst
    ${PROJECT_SOURCE_DIR}/packaging/deb/prerm ${PROJECT_SOURCE_DIR}/packaging/deb/postrm)
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "wfod: install prefix ${CMAKE_INSTALL_PREFIX}: `cpack -G DEB` needs /usr "
                 "(the presets' prefix; the package's conffiles and units name /usr and /etc)")
endif()
include(CPack)
