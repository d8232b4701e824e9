#include "authorize.hpp"

#include "convert/names.hpp"

namespace linkage::server::access {
namespace {

constexpr std::string_view kBearer = "Bearer ";

grpc::Status unauthenticated(const std::string& why) {
  return {grpc::StatusCode::UNAUTHENTICATED,
          "authorization: " + why +
              "; send the metadata 'authorization: Bearer TOKEN' (linkctl --token or LINKCTL_TOKEN, "
              "linkage.Client(token=...), the viewer's token field)"};
}

std::string world_list(const TokenEntry& entry) {
  std::string out;
  for (const std::string& w : entry.worlds) out += (out.empty() ? "" : ", ") + quote(w);
  return out;
}

}  // namespace

grpc::Status authorize(const TokenTable& tokens, std::string_view method, const std::optional<MethodRule>& rule,
                       const std::optional<std::string_view>& authorization, const std::vector<std::string>& worlds) {
  if (!authorization) return unauthenticated("this server needs a token and the call has none");
  // The scheme is case-insensitive (RFC 7235); the token is not.
  std::string_view value = *authorization;
  if (value.size() < kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), value.begin(),
                  [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
    return unauthenticated("the value is not 'Bearer TOKEN'");
  value.remove_prefix(kBearer.size());
  const TokenEntry* entry = tokens.find(value);
  if (entry == nullptr) return unauthenticated("the token is not one this server knows (mistyped, or revoked?)");
  if (!rule)
    return {grpc::StatusCode::PERMISSION_DENIED,
            std::string(method) + " has no role in the server's table, so no token may call it (a server bug: "
                                  "please report it)"};
  if (entry->role < rule->role)
    return {grpc::StatusCode::PERMISSION_DENIED, "token " + quote(entry->name) + " has the role " +
                                                     std::string(role_name(entry->role)) + ", and " +
                                                     std::string(method) + " needs " +
                                                     std::string(role_name(rule->role)) + " or above"};
  for (const std::string& world : worlds)
    if (!entry->allows_world(world))
      return {grpc::StatusCode::PERMISSION_DENIED, "token " + quote(entry->name) + " is for the world" +
                                                     (entry->worlds.size() == 1 ? " " : "s ") + world_list(*entry) +
                                                     " only, and the call names " + quote(world)};
  return grpc::Status::OK;
}

}  // namespace linkage::server::access
