#pragma once
// Who may call what: three roles, each allowing everything the one before
// does, and the role every RPC of linkage.v1 needs.
//
//   viewer  read and stream (Get*, List*, SaveScene, StreamState)
//   editor  change what is in a world and run it (bodies, constraints,
//           forces, batches, settings, pause / resume / step / reset)
//   admin   create and delete worlds, load scenes
//
// The table is the one place a method's role is written. A method missing
// from it is refused to every token (fail closed), and access_test walks
// the services' descriptors so that a new RPC without a role fails the tests.

#include <optional>
#include <string>
#include <string_view>

namespace linkage::server::access {

enum class Role { viewer = 0, editor = 1, admin = 2 };

std::string_view role_name(Role role);
std::optional<Role> parse_role(std::string_view text);

struct MethodRule {
  Role role;
  // The request's field that names the world the call acts on ("world", or
  // "name" for CreateWorld); empty for calls on no one world (ListWorlds).
  // A token for some worlds only is checked against it, and against
  // `new_world_field` too when set (ForkWorld's copy).
  std::string_view world_field;
  std::string_view new_world_field = {};
};

// The rule of `method` as gRPC names it ("/linkage.v1.WorldService/CreateWorld");
// nullopt when the table has none.
std::optional<MethodRule> method_rule(std::string_view method);

}  // namespace linkage::server::access
