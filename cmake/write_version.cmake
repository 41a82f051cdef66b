# Writes wfod/version.hpp (cmake/version.hpp.in): the project version and, in a git
# checkout, `git describe`. Runs at configure time and at every build (the
# wfod_version_header target): configure_file rewrites the header only when its text
# changes, so a build recompiles the few files that include it only when the version moved.
# -D inputs: WFOD_SOURCE_DIR, WFOD_PROJECT_VERSION, WFOD_VERSION_IN, WFOD_VERSION_OUT,
# GIT_EXECUTABLE (may be empty: no git installed).
set(WFOD_GIT_DESCRIBE "")
if(GIT_EXECUTABLE AND EXISTS "${WFOD_SOURCE_DIR}/.git")
  # Tags look like v0.1.0; none yet gives the abbreviated commit. --dirty marks a build
  # from uncommitted changes. A failure (not a repository after all) leaves it empty.
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" -C "${WFOD_SOURCE_DIR}" describe --tags --always --dirty
            --match "v[0-9]*"
    OUTPUT_VARIABLE WFOD_GIT_DESCRIBE
    RESULT_VARIABLE git_rc
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT git_rc EQUAL 0)
    set(WFOD_GIT_DESCRIBE "")
  endif()
endif()
# Only what a C string literal may hold unescaped: git output is ASCII without quotes, but
# a stray character must not break the build.
string(REGEX REPLACE "[^A-Za-z0-9._+-]" "" WFOD_GIT_DESCRIBE "${WFOD_GIT_DESCRIBE}")
if(WFOD_GIT_DESCRIBE)
  set(WFOD_VERSION_TEXT "${WFOD_PROJECT_VERSION} (git ${WFOD_GIT_DESCRIBE})")
else()
  set(WFOD_VERSION_TEXT "${WFOD_PROJECT_VERSION}")
endif()
configure_file("${WFOD_VERSION_IN}" "${WFOD_VERSION_OUT}" @ONLY)
