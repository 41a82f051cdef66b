// The environment-variable table (wfod/env_knobs.hpp): the product reads the environment only
// through it, every row is documented in docs/operations.md "Environment variables", and
// env_value() reads the row's variable.
#include "wfod/env_knobs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace wfod {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The text of docs/operations.md from the heading `## Environment variables` to the next
// `## ` heading.
std::string operations_section() {
  const std::string text = read_text(fs::path(WFOD_SOURCE_DIR) / "docs" / "operations.md");
  const std::string heading = "\n## Environment variables\n";
  const size_t start = text.find(heading);
  if (start == std::string::npos) return "";
  const size_t end = text.find("\n## ", start + heading.size());
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(EnvKnobs, EveryRowIsDocumentedInOperations) {
  const std::string section = operations_section();
  ASSERT_FALSE(section.empty()) << "docs/operations.md has no \"## Environment variables\"";
  for (const EnvKnob& k : kEnvKnobs)
    EXPECT_NE(section.find("| `" + std::string(k.name) + "` |"), std::string::npos)
        << k.name << " is not a row of docs/operations.md \"Environment variables\"";
}

TEST(EnvKnobs, NamesAreUnique) {
  std::set<std::string_view> names;
  for (const EnvKnob& k : kEnvKnobs) EXPECT_TRUE(names.insert(k.name).second) << k.name;
}

// The product's sources (test helpers aside) call getenv nowhere but in the table's header,
// so a new knob cannot be read without a row (and so without documentation).
TEST(EnvKnobs, NoOtherGetenvInTheProduct) {
  const fs::path root(WFOD_SOURCE_DIR);
  const fs::path table = root / "kernels" / "include" / "wfod" / "env_knobs.hpp";
  std::vector<std::string> offenders;
  for (const char* dir : {"kernels", "daemon", "config", "feeds", "tools", "clients"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h") continue;
      if (fs::equivalent(entry.path(), table)) continue;
      // Test helpers (clients/cpp/tests) read their own settings.
      if (entry.path().string().find("/tests/") != std::string::npos) continue;
      std::istringstream lines(read_text(entry.path()));
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n)
        if (line.find("getenv(") != std::string::npos)
          offenders.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n));
    }
  }
  EXPECT_TRUE(offenders.empty()) << "getenv outside wfod/env_knobs.hpp: " << [&] {
    std::string all;
    for (const std::string& o : offenders) all += o + " ";
    return all;
  }();
}

TEST(EnvKnobs, ValueReadsTheRowsVariable) {
  const char* name = env_name(Env::cuda_stream_graph);
  EXPECT_STREQ(name, "WFOD_CUDA_STREAM_GRAPH");
  ::setenv(name, "0", 1);
  ASSERT_NE(env_value(Env::cuda_stream_graph), nullptr);
  EXPECT_STREQ(env_value(Env::cuda_stream_graph), "0");
  ::unsetenv(name);
  EXPECT_EQ(env_value(Env::cuda_stream_graph), nullptr);
}

}  // namespace
}  // namespace wfod
