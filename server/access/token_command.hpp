#pragma once
// `linkaged token new|hash`: a line for the token file.

#include <string>

namespace linkage::server::access {

struct TokenCommand {
  bool fresh = true;         // new: make a random token; hash: read one from standard input
  std::string name;
  std::string role;
  std::string worlds = "*";  // '*' or a comma-separated list
};

// Prints (new) the token on the first line and the file's line on the
// second, or (hash) the line only. 0, or 2 with a message on bad input.
int token_command(const TokenCommand& command);

}  // namespace linkage::server::access
