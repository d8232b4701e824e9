#include "token_command.hpp"

#include <iostream>
#include <string>

#include "tokens.hpp"

namespace linkage::server::access {

int token_command(const TokenCommand& c) {
  std::string token;
  if (c.fresh) {
    token = new_token();
    if (token.empty()) {
      std::cerr << "linkaged token new: the system's random number generator failed\n";
      return 2;
    }
  } else if (!std::getline(std::cin, token) || token.empty()) {
    std::cerr << "linkaged token hash: give the token on standard input (echo -n TOKEN | linkaged token hash ...)\n";
    return 2;
  }
  if (token.find_first_of(" \t\r") != std::string::npos) {
    std::cerr << "linkaged token hash: a token has no spaces (they would not survive an HTTP header)\n";
    return 2;
  }
  const std::string line = c.name + " " + c.role + " " + c.worlds + " sha256:" + sha256_hex(token);
  // The line is checked the way the server will read it.
  if (Result<TokenTable> table = TokenTable::parse(line, "the line"); !table) {
    std::cerr << "linkaged token: " << table.error().message << "\n";
    return 2;
  }
  if (c.fresh) std::cout << token << "\n";
  std::cout << line << "\n";
  return 0;
}

}  // namespace linkage::server::access
