# SPDX-License-Identifier: MIT
# install_generated.cmake - the installed files that name the install prefix,
# written by `cmake --install` itself (install(SCRIPT) in CMakeLists.txt), as
# only then is the prefix known: `--prefix P` replaces the configure-time one.
#
#   LIBDIR/pkgconfig/pmaps.pc            prefix, libdir, includedir, Version
#   lib/python3/dist-packages/pmaps/_paths.py   (when python/pmaps exists)
#
# The _paths.py contract, for the Python binding (python/):
#   LIBPMAPS = "<CMAKE_INSTALL_FULL_LIBDIR>/libpmaps.so.<PMAPS_ABI_VERSION>"
# one line, the absolute path of the installed shared library, with the
# install-time prefix and without DESTDIR (DESTDIR is a staging root, not
# where the library will be loaded from). Nothing else in the file is API.
#
# Set by the install(CODE) before this: PMAPS_SOURCE_DIR, PMAPS_GEN_DIR,
# PMAPS_VERSION, PMAPS_SONAME, PMAPS_LIBDIR, PMAPS_INCLUDEDIR, PMAPS_PYTHON.
# file(INSTALL) prepends $ENV{DESTDIR} and records the file in the manifest.

function(pmaps_install_dir out var dir)
  if(IS_ABSOLUTE "${dir}")
    set(full "${dir}")
    set(pc "${dir}")
  else()
    set(full "${CMAKE_INSTALL_PREFIX}/${dir}")
    set(pc "\${prefix}/${dir}")
  endif()
  cmake_path(SET full NORMALIZE "${full}")
  set(${out} "${full}" PARENT_SCOPE)
  set(${var} "${pc}" PARENT_SCOPE)
endfunction()

cmake_path(SET PMAPS_PC_PREFIX NORMALIZE "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "(.)/$" "\\1" PMAPS_PC_PREFIX "${PMAPS_PC_PREFIX}")
pmaps_install_dir(libdir PMAPS_PC_LIBDIR "${PMAPS_LIBDIR}")
pmaps_install_dir(includedir PMAPS_PC_INCLUDEDIR "${PMAPS_INCLUDEDIR}")

configure_file("${PMAPS_SOURCE_DIR}/cmake/pmaps.pc.in" "${PMAPS_GEN_DIR}/pmaps.pc" @ONLY)
file(INSTALL DESTINATION "${libdir}/pkgconfig" TYPE FILE FILES "${PMAPS_GEN_DIR}/pmaps.pc")

if(PMAPS_PYTHON)
  string(REPLACE "\\" "\\\\" lib "${libdir}/${PMAPS_SONAME}")
  string(REPLACE "\"" "\\\"" lib "${lib}")
  file(WRITE "${PMAPS_GEN_DIR}/_paths.py"
    "# Written by cmake --install (cmake/install_generated.cmake): the libpmaps\n"
    "# this installation put in place. Not in the source tree; not to be edited.\n"
    "LIBPMAPS = \"${lib}\"\n")
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/python3/dist-packages/pmaps"
    TYPE FILE FILES "${PMAPS_GEN_DIR}/_paths.py")
endif()
