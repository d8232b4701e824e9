#pragma once
// The client's def structs as linkage.v1 messages, and JSON in and out.
//
// These are what the typed helpers of Client and Batch call; they are public
// so that code holding raw messages (a scene file, a batch built by hand) can
// mix both. An unset std::optional stays unset in the message, so the server
// applies its own default or measures the current value.

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "linkage/client/constraints.hpp"
#include "linkage/client/defs.hpp"
#include "linkage/client/result.hpp"
#include "linkage/v1/service.pb.h"

namespace linkage::client {

namespace v1 = linkage::v1;

v1::Vec3 to_proto(const Vec3& v);
Vec3 from_proto(const v1::Vec3& v);
v1::Id to_proto(Id id);
Id from_proto(const v1::Id& id);
v1::BodyRef to_proto(const BodyRef& ref);
v1::BodyDef to_proto(const BodyDef& def);
v1::WorldSettings to_proto(const WorldSettings& settings);
v1::WorldLimits to_proto(const WorldLimits& limits);
v1::ConstraintDef to_proto(const ConstraintDef& def, const ConstraintOptions& options = {});
v1::ForceDef to_proto(const SpringDef& def);
v1::ForceDef to_proto(const ForceDef& def);
v1::Impulse to_proto(const ImpulseDef& def);

// The proto3 JSON mapping (the scenes/ file format): field names as in the
// .proto files, enums by name. `pretty`: indented over several lines.
std::string to_json(const google::protobuf::Message& message, bool pretty = false);
// Parses JSON into `out`; INVALID_ARGUMENT with the parser's message if it
// does not fit the message type.
Status from_json(std::string_view json, google::protobuf::Message* out);

}  // namespace linkage::client
