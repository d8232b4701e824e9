#pragma once
// Updates by field mask (google.protobuf.FieldMask, the usual convention of
// Google's APIs): only the fields a mask names change, the rest keep the
// object's current values.

#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/message.h>

#include <string_view>

#include "linkage/result.hpp"

namespace linkage::server {

// Checks every path of `mask` against `type` (INVALID_ARGUMENT
// "<field>.paths[i]: ..." for an empty or unknown one), then copies the
// named fields of `given` into `current` (a named message field is replaced
// whole). An empty mask copies nothing: callers treat it as "no mask".
Status merge_masked(const google::protobuf::Message& given, const google::protobuf::FieldMask& mask,
                    google::protobuf::Message* current, std::string_view field = "update_mask");

}  // namespace linkage::server
