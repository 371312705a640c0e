# CPack: `cpack -G DEB` and `cpack -G TGZ` in the build directory (after building) make one
# package each of the install components in TRITON_JIT_PACKAGE_COMPONENTS: by default the library,
# its headers and CMake package (core) and the triton-jit tool (cli). The torch component is left
# out by default: it is tied to the libtorch it was built against, which no Debian package
# provides; add it with -DTRITON_JIT_PACKAGE_COMPONENTS="core;cli;torch".
set(TRITON_JIT_PACKAGE_COMPONENTS "core;cli" CACHE STRING
    "Install components that cpack puts in the .deb and .tar.gz (core, cli, torch)")

set(CPACK_PACKAGE_NAME "libtriton-jit")
set(CPACK_PACKAGE_VENDOR "libtriton_jit")
set(CPACK_PACKAGE_CONTACT "libtriton_jit maintainers <libtriton-jit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_README "${PROJECT_SOURCE_DIR}/README.md")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_SOURCE_GENERATOR "")
# The chosen components, together in one package per generator.
set(CPACK_COMPONENTS_ALL ${TRITON_JIT_PACKAGE_COMPONENTS})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)

# .deb: installed below /usr (the DEB default), named as Debian names packages
# (libtriton-jit_0.1.0_amd64.deb).
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
# What the library needs from the system. Python with Triton is found at run time (compiles
# only); it is no package dependency, as pip installs Triton.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1")
# .tar.gz: one folder of its own name holding bin/, include/ and lib/, to unpack anywhere (the
# CMake package and the tool find their files relative to themselves).
set(CPACK_PACKAGE_FILE_NAME "${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
# That folder for the archive only (cpack reads this file once per generator).
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/cpack_per_generator.cmake")

include(CPack)
