# Install rules beyond each target's own (those sit next to their targets):
# the public headers and the packages a layer author builds against, man pages
# and bash completion generated from the commands' help texts, the docs and
# the example layers' sources. Included from the top-level CMakeLists.txt.
# No install RPATH is needed: the programs link no library of gltrace's own
# (the interposer is preloaded and the layers are loaded by path), and CMake
# drops the build tree's RPATH at install (tests/install checks both).
include(CMakePackageConfigHelpers)

# The layer contract headers.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gltrace
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
# The version script that keeps a layer's exports to the contract's two
# functions (a live layer exports more and uses a script of its own).
install(FILES ${PROJECT_SOURCE_DIR}/layers/android_layer.map
  DESTINATION ${CMAKE_INSTALL_DATADIR}/gltrace)

# gltrace::layer, what a layer's sources compile against: gltrace's headers
# and EGL's (EGL/egl.h; gltraceConfig.cmake adds their directory). Nothing to
# link: a layer reaches EGL/GLES through the loader's next pointers only.
add_library(gltrace_layer INTERFACE)
add_library(gltrace::layer ALIAS gltrace_layer)
set_target_properties(gltrace_layer PROPERTIES EXPORT_NAME layer)
target_include_directories(gltrace_layer INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS gltrace_layer EXPORT gltraceTargets)

set(GLTRACE_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gltrace)
set(GLTRACE_INSTALL_LAYER_MAP ${CMAKE_INSTALL_DATADIR}/gltrace/android_layer.map)
install(EXPORT gltraceTargets NAMESPACE gltrace:: DESTINATION ${GLTRACE_INSTALL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gltraceConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/gltraceConfig.cmake
  INSTALL_DESTINATION ${GLTRACE_INSTALL_CMAKE_DIR}
  PATH_VARS GLTRACE_INSTALL_LAYER_DIR GLTRACE_INSTALL_LAYER_MAP)
# 0.x: a minor version may change the contract's extensions.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/gltraceConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_BINARY_DIR}/cmake/gltraceConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/gltraceConfigVersion.cmake
  DESTINATION ${GLTRACE_INSTALL_CMAKE_DIR})

# gltrace.pc: its prefix is found from the file's own place (${pcfiledir}),
# so the package works wherever `cmake --install --prefix` or DESTDIR put it.
set(GLTRACE_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH GLTRACE_PC_PREFIX /${GLTRACE_PC_DIR} /)
string(REGEX REPLACE "/$" "" GLTRACE_PC_PREFIX "${GLTRACE_PC_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gltrace.pc.in ${CMAKE_BINARY_DIR}/cmake/gltrace.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/gltrace.pc DESTINATION ${GLTRACE_PC_DIR})

# Man pages and bash completion, from the built commands' --help (so they
# list exactly the commands and options there are).
option(GLTRACE_BUILD_MANPAGES "Generate man pages with help2man" ON)
set(GLTRACE_DOCS_DIR ${CMAKE_BINARY_DIR}/share)
set(_docs_command ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/cli_docs.py
  --gltrace $<TARGET_FILE:gltrace> --glreplay $<TARGET_FILE:glreplay> --version ${PROJECT_VERSION}
  --completion-dir ${GLTRACE_DOCS_DIR}/bash-completion/completions)
if(GLTRACE_BUILD_MANPAGES)
  find_program(GLTRACE_HELP2MAN help2man)
  if(NOT GLTRACE_HELP2MAN)
    message(FATAL_ERROR "help2man not found: install it (tools/deps.sh does), or configure "
      "with -DGLTRACE_BUILD_MANPAGES=OFF to build and install without man pages")
  endif()
  list(APPEND _docs_command --help2man ${GLTRACE_HELP2MAN} --man-dir ${GLTRACE_DOCS_DIR}/man/man1)
endif()
add_custom_command(OUTPUT ${GLTRACE_DOCS_DIR}/cli_docs.stamp
  COMMAND ${_docs_command}
  COMMAND ${CMAKE_COMMAND} -E touch ${GLTRACE_DOCS_DIR}/cli_docs.stamp
  DEPENDS gltrace glreplay ${PROJECT_SOURCE_DIR}/tools/cli_docs.py
  COMMENT "Generating man pages and bash completion from the help texts" VERBATIM)
add_custom_target(gltrace_cli_docs ALL DEPENDS ${GLTRACE_DOCS_DIR}/cli_docs.stamp)
install(DIRECTORY ${GLTRACE_DOCS_DIR}/bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR})
if(GLTRACE_BUILD_MANPAGES)
  install(DIRECTORY ${GLTRACE_DOCS_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR})
endif()

# Documentation, and the example layers as sources with a build file of their
# own that uses the installed package.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
  FILES_MATCHING PATTERN "*.md")
install(FILES
  ${PROJECT_SOURCE_DIR}/layers/examples/passive_layer.cpp
  ${PROJECT_SOURCE_DIR}/layers/examples/active_layer.cpp
  ${PROJECT_SOURCE_DIR}/layers/examples/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/layers)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/examples-layers.cmake
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/layers RENAME CMakeLists.txt)
