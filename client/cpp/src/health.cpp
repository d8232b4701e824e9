// The standard gRPC health check (grpc.health.v1.Health/Check), called
// through a generic stub: Debian ships no generated stubs for health.proto,
// and its two messages are one field each, so they are encoded here by hand.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/generic/generic_stub.h>

#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include "linkage/client/client.hpp"
#include "call.hpp"

namespace linkage::client {
namespace {

// HealthCheckRequest { string service = 1; }
grpc::ByteBuffer encode_request(const std::string& service) {
  std::string bytes;
  if (!service.empty()) {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.WriteTag(1 << 3 | 2);
    coded.WriteVarint32(static_cast<std::uint32_t>(service.size()));
    coded.WriteString(service);
  }
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// HealthCheckResponse { ServingStatus status = 1; }: 1 is SERVING. Fields
// this code does not know are skipped, as protobuf readers must.
bool decode_serving(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return false;
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::uint32_t status = 0;
  while (const std::uint32_t tag = in.ReadTag()) {
    if (tag == (1 << 3 | 0)) {
      if (!in.ReadVarint32(&status)) return false;
    } else if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
  return status == 1;
}

}  // namespace

Result<bool> Client::serving(const std::string& service) const {
  grpc::GenericStub stub(channel_);
  grpc::ClientContext ctx;
  ctx.set_deadline(detail::Clock::now() + options_.call_timeout);
  const grpc::ByteBuffer request = encode_request(service);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  if (!status.ok()) return Error::from(status);
  return decode_serving(response);
}

}  // namespace linkage::client
