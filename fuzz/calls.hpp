#pragma once
// The fuzzer's input: a list of calls, each an RPC of the linkage.v1 services
// and the bytes of its request, as
//
//     [method: 1 byte][length: 2 bytes, little-endian][request: length bytes] ...
//
// A method byte picks from every method of the four services in the order of
// their full names (so any byte is some method); a length past the end takes
// what is left. The request bytes go to the server as they are: most mutated
// inputs are requests that do not parse, which is a path to fuzz too.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace linkage::fuzz {

struct Call {
  std::string method;   // "/linkage.v1.BodyService/CreateBody"
  bool stream = false;  // server streaming (StateStream)
  std::string request;  // the serialized request
};

// Every method of WorldService, BodyService, ConstraintService and ForceService, by full name.
const std::vector<Call>& methods();

// At most `max_calls` calls from an input.
std::vector<Call> decode(std::string_view input, std::size_t max_calls);
// An input that decodes to `calls` (methods named as in methods()).
std::string encode(const std::vector<Call>& calls);

}  // namespace linkage::fuzz
