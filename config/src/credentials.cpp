// Resolution of [curve] paths against systemd's credentials directory
// (wfod/config/credentials.hpp).
#include "wfod/config/credentials.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "wfod/env_knobs.hpp"

namespace wfod::config {

namespace fs = std::filesystem;

std::string credentials_directory() {
  const char* dir = env_value(Env::credentials_directory);
  return dir == nullptr ? "" : dir;
}

std::string resolve_curve_file(const std::string& written, const std::string& config_folder,
                               const std::string& credentials_dir) {
  if (written.empty() || fs::path(written).is_absolute()) return written;
  if (!credentials_dir.empty()) {
    const std::string credential =
        (fs::path(credentials_dir) / written).lexically_normal().string();
    struct stat st {};
    if (::stat(credential.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return credential;
  }
  if (config_folder.empty()) return written;
  return (fs::path(config_folder) / written).lexically_normal().string();
}

bool inside_directory(const std::string& path, const std::string& dir) {
  if (dir.empty() || path.empty()) return false;
  const fs::path rel =
      fs::path(path).lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

}  // namespace wfod::config
