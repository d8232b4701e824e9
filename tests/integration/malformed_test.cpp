// Case 9 of issue 12: requests that cannot be parsed (truncated, trailing
// garbage, a string that is not UTF-8, not protobuf at all) are answered
// INVALID_ARGUMENT with a message naming the request's type, for unary calls
// and streams alike, and change nothing.
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <sstream>

#include "picture.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

// Sends `bytes` as the request of `method` and waits for the answer.
grpc::Status raw_call(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                      const std::string& bytes) {
  grpc::GenericStub stub(channel);
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  auto ctx = context();
  std::promise<grpc::Status> done;
  stub.UnaryCall(ctx.get(), method, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  return done.get_future().get();
}

// A well-formed CreateBodyRequest for world "default", serialized.
std::string create_body_bytes(const std::string& name) {
  v1::CreateBodyRequest req;
  req.set_world("default");
  *req.mutable_body() = particle(name, 1, 2);
  return req.SerializeAsString();
}

struct Malformed {
  std::string name;
  std::string method;
  std::string bytes;
  std::string type;  // the request type the message must name
};

std::vector<Malformed> malformed() {
  const std::string whole = create_body_bytes("ok");
  std::string not_utf8 = create_body_bytes("marker");
  // The name's bytes become an invalid UTF-8 sequence (a lead byte and no continuation).
  not_utf8.replace(not_utf8.find("marker"), 2, "\xc3\x28");
  const std::string body = "/linkage.v1.BodyService/CreateBody";
  v1::StepRequest step;
  step.set_world("default");
  step.set_ticks(1);
  return {
      {"Truncated", body, whole.substr(0, whole.size() - 3), "linkage.v1.CreateBodyRequest"},
      {"TrailingGarbage", body, whole + "\xff\xff\xff", "linkage.v1.CreateBodyRequest"},
      {"NotUtf8", body, not_utf8, "linkage.v1.CreateBodyRequest"},
      {"NotProtobuf", "/linkage.v1.WorldService/Step", "\x0a\xff\xff\xff\xff\x0f", "linkage.v1.StepRequest"},
      {"BadTag", "/linkage.v1.ConstraintService/AddConstraint", std::string("\x00\x01", 2),
       "linkage.v1.AddConstraintRequest"},
  };
}

class MalformedRequests : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedRequests, AreInvalidArgumentWithAMessageAndChangeNothing) {
  InProcessServer server;
  Client c(server.target());
  ASSERT_TRUE(raw_call(c.channel, "/linkage.v1.BodyService/CreateBody", create_body_bytes("first")).ok());
  // Paused, so that only a request could change what the pictures show.
  v1::PauseRequest pause;
  pause.set_world("default");
  v1::PauseResponse paused;
  ASSERT_TRUE(c.worlds->Pause(context().get(), pause, &paused).ok());
  const Picture before = picture(c, "default");

  const Malformed& m = GetParam();
  const grpc::Status s = raw_call(c.channel, m.method, m.bytes);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status_text(s);
  EXPECT_NE(s.error_message().find(m.type), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("UTF-8"), std::string::npos) << s.error_message();
  expect_same(picture(c, "default"), before);
}

INSTANTIATE_TEST_SUITE_P(Server, MalformedRequests, ::testing::ValuesIn(malformed()),
                         [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; });

// Fifty malformed requests, ten with a string that is not UTF-8 (for which
// protobuf would log a line of its own each time), make one log line at most.
TEST(MalformedLog, AtMostOneLineEveryTenSeconds) {
  InProcessServer server;
  Client c(server.target());
  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(sink);
  for (const Malformed& m : malformed())
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(raw_call(c.channel, m.method, m.bytes).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  spdlog::default_logger()->sinks().pop_back();
  const std::string text = log.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

TEST(MalformedStream, IsInvalidArgumentWithAMessage) {
  InProcessServer server;
  Client c(server.target());
  grpc::GenericStub stub(c.channel);
  auto ctx = context();
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(ctx.get(), "/linkage.v1.WorldService/StreamState", &cq);
  void* tag = nullptr;
  bool ok = false;
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  grpc::Slice slice(std::string("\x0a\x40", 2));  // a 64-byte world name, and no bytes of it
  grpc::ByteBuffer request(&slice, 1);
  call->WriteLast(request, grpc::WriteOptions(), reinterpret_cast<void*>(2));
  ASSERT_TRUE(cq.Next(&tag, &ok));
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(3));
  ASSERT_TRUE(cq.Next(&tag, &ok));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status_text(status);
  EXPECT_NE(status.error_message().find("linkage.v1.StreamStateRequest"), std::string::npos) << status.error_message();
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace
}  // namespace linkage::itest
