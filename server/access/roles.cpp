#include "roles.hpp"

#include <array>
#include <utility>

namespace linkage::server::access {
namespace {

constexpr std::string_view kWorld = "world";

struct Entry {
  std::string_view method;
  MethodRule rule;
};

// clang-format off
constexpr std::array kRules{
    Entry{"/linkage.v1.WorldService/CreateWorld",           {Role::admin, "name"}},
    Entry{"/linkage.v1.WorldService/ListWorlds",            {Role::viewer, ""}},
    Entry{"/linkage.v1.WorldService/GetWorld",              {Role::viewer, kWorld}},
    Entry{"/linkage.v1.WorldService/UpdateWorld",           {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/DeleteWorld",           {Role::admin, kWorld}},
    Entry{"/linkage.v1.WorldService/Pause",                 {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/Resume",                {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/Step",                  {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/Reset",                 {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/LoadScene",             {Role::admin, kWorld}},
    Entry{"/linkage.v1.WorldService/SaveScene",             {Role::viewer, kWorld}},
    Entry{"/linkage.v1.WorldService/ApplyBatch",            {Role::editor, kWorld}},
    Entry{"/linkage.v1.WorldService/StreamState",           {Role::viewer, kWorld}},
    Entry{"/linkage.v1.WorldService/ForkWorld",             {Role::admin, kWorld, "name"}},
    Entry{"/linkage.v1.BodyService/CreateBody",             {Role::editor, kWorld}},
    Entry{"/linkage.v1.BodyService/CreateBodies",           {Role::editor, kWorld}},
    Entry{"/linkage.v1.BodyService/GetBody",                {Role::viewer, kWorld}},
    Entry{"/linkage.v1.BodyService/ListBodies",             {Role::viewer, kWorld}},
    Entry{"/linkage.v1.BodyService/UpdateBody",             {Role::editor, kWorld}},
    Entry{"/linkage.v1.BodyService/RemoveBody",             {Role::editor, kWorld}},
    Entry{"/linkage.v1.ConstraintService/AddConstraint",    {Role::editor, kWorld}},
    Entry{"/linkage.v1.ConstraintService/AddConstraints",   {Role::editor, kWorld}},
    Entry{"/linkage.v1.ConstraintService/GetConstraint",    {Role::viewer, kWorld}},
    Entry{"/linkage.v1.ConstraintService/ListConstraints",  {Role::viewer, kWorld}},
    Entry{"/linkage.v1.ConstraintService/UpdateConstraint", {Role::editor, kWorld}},
    Entry{"/linkage.v1.ConstraintService/RemoveConstraint", {Role::editor, kWorld}},
    Entry{"/linkage.v1.ForceService/AddForce",              {Role::editor, kWorld}},
    Entry{"/linkage.v1.ForceService/UpdateForce",           {Role::editor, kWorld}},
    Entry{"/linkage.v1.ForceService/RemoveForce",           {Role::editor, kWorld}},
    Entry{"/linkage.v1.ForceService/ListForces",            {Role::viewer, kWorld}},
    Entry{"/linkage.v1.ForceService/ApplyImpulse",          {Role::editor, kWorld}},
};
// clang-format on

}  // namespace

std::string_view role_name(Role role) {
  switch (role) {
    case Role::viewer: return "viewer";
    case Role::editor: return "editor";
    case Role::admin: return "admin";
  }
  return "?";
}

std::optional<Role> parse_role(std::string_view text) {
  for (const Role r : {Role::viewer, Role::editor, Role::admin})
    if (text == role_name(r)) return r;
  return std::nullopt;
}

std::optional<MethodRule> method_rule(std::string_view method) {
  for (const Entry& e : kRules)
    if (e.method == method) return e.rule;
  return std::nullopt;
}

}  // namespace linkage::server::access
