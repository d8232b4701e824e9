#pragma once
// Test helper: a message from its proto3 JSON, so that inputs read like the
// requests and scene files they stand for.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

template <class Message>
Message from_json(const std::string& json) {
  Message m;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &m);
  EXPECT_TRUE(status.ok()) << json;
  return m;
}

inline std::string to_json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, options);
  return out;
}

// gtest-friendly equality of two messages, showing both on failure.
#define EXPECT_PROTO_EQ(a, b) \
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a, b)) << to_json(a) << "\nvs\n" << to_json(b)
