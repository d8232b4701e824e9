#include "config_file.hpp"

#include <algorithm>
#include <cstdlib>

namespace linkage::server {

std::vector<CLI::ConfigItem> ConfigUnderEnvironment::from_config(std::istream& input) const {
  std::vector<CLI::ConfigItem> items = CLI::ConfigTOML::from_config(input);
  // Keys of sections ([simulate]...) and unknown keys are left for CLI11 to refuse.
  const auto set_in_environment = [&](const CLI::ConfigItem& item) {
    if (!item.parents.empty()) return false;
    const CLI::Option* option = app_.get_option_no_throw("--" + item.name);
    if (option == nullptr || option->get_envname().empty()) return false;
    const char* value = std::getenv(option->get_envname().c_str());
    return value != nullptr && *value != '\0';
  };
  items.erase(std::remove_if(items.begin(), items.end(), set_in_environment), items.end());
  return items;
}

}  // namespace linkage::server
