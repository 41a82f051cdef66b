// systemd credentials (LoadCredential=) for the [curve] key files: under DynamicUser= the
// daemon's user cannot read root's 0600 keys, so the unit hands them over as files in
// $CREDENTIALS_DIRECTORY, readable by that service alone. A relative [curve] path is looked
// up there first (docs/operations.md "CURVE keys under systemd"; docs/spec-notes.md).
#pragma once

#include <string>

#include "wfod/env_knobs.hpp"

namespace wfod::config {

// The environment variable systemd sets for a unit with LoadCredential= / SetCredential=.
inline constexpr const char* kCredentialsDirectoryEnv = env_name(Env::credentials_directory);

// $CREDENTIALS_DIRECTORY, or "" when wfod does not run with credentials.
std::string credentials_directory();

// Where a [curve] path written in a config resolves: an absolute path as written; a relative
// one to credentials_dir/written when credentials_dir is set and a file is there, otherwise
// to config_folder/written (beside the config file, as every relative path in it).
std::string resolve_curve_file(const std::string& written, const std::string& config_folder,
                               const std::string& credentials_dir);

// True when `path` names a file inside `dir` (lexically, after normalisation); false for an
// empty dir.
bool inside_directory(const std::string& path, const std::string& dir);

}  // namespace wfod::config
