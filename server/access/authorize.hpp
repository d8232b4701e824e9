#pragma once
// The decision on one call: from the method, the call's metadata and the
// world it names, to OK, UNAUTHENTICATED or PERMISSION_DENIED with a message
// that says what to send or whom to ask.

#include <grpcpp/grpcpp.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roles.hpp"
#include "tokens.hpp"

namespace linkage::server::access {

// `authorization`: the value of the call's "authorization" metadata, if any.
// `rule`: the method's (nullopt: a method without a role, refused to all).
// `worlds`: the worlds the request names (its rule's fields).
grpc::Status authorize(const TokenTable& tokens, std::string_view method, const std::optional<MethodRule>& rule,
                       const std::optional<std::string_view>& authorization, const std::vector<std::string>& worlds);

}  // namespace linkage::server::access
