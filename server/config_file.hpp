#pragma once
// linkaged's --config FILE: its flags in a TOML file, read by CLI11 (keys
// are the flags without their dashes: `tick-rate = 120`). What the command
// line gives wins, then the environment (LINKAGE_*), then the file: CLI11
// reads the file before the environment, so the file's keys whose variable
// is set are dropped here.

#include <CLI/CLI.hpp>

#include <vector>

namespace linkage::server {

class ConfigUnderEnvironment final : public CLI::ConfigTOML {
 public:
  // `app` is the one whose options the file sets; it outlives this.
  explicit ConfigUnderEnvironment(const CLI::App& app) : app_(app) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

 private:
  const CLI::App& app_;
};

}  // namespace linkage::server
