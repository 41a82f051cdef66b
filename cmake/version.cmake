# One version for every binary (included by the top-level CMakeLists.txt): the `wfod_version`
# interface target puts the generated wfod/version.hpp on a target's include path and
# regenerates it (cmake/write_version.cmake) before the target builds.
find_package(Git QUIET)
set(WFOD_VERSION_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated/version)
set(WFOD_VERSION_HEADER ${WFOD_VERSION_INCLUDE_DIR}/wfod/version.hpp)
set(WFOD_VERSION_ARGS
  -DWFOD_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DWFOD_PROJECT_VERSION=${PROJECT_VERSION}
  -DWFOD_VERSION_IN=${PROJECT_SOURCE_DIR}/cmake/version.hpp.in
  -DWFOD_VERSION_OUT=${WFOD_VERSION_HEADER}
  -DGIT_EXECUTABLE=${GIT_EXECUTABLE})
# Written once now, so the header exists for the first build and for editors.
execute_process(COMMAND ${CMAKE_COMMAND} ${WFOD_VERSION_ARGS}
                        -P ${PROJECT_SOURCE_DIR}/cmake/write_version.cmake)
# And at every build: a commit or an edit changes `git describe` without a configure step.
add_custom_target(wfod_version_header
  COMMAND ${CMAKE_COMMAND} ${WFOD_VERSION_ARGS} -P ${PROJECT_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${WFOD_VERSION_HEADER}
  COMMENT "wfod version header"
  VERBATIM)
add_library(wfod_version INTERFACE)
add_library(wfod::version ALIAS wfod_version)
target_include_directories(wfod_version INTERFACE ${WFOD_VERSION_INCLUDE_DIR})
add_dependencies(wfod_version wfod_version_header)
