#pragma once
// A unary call's reactor that counts the call, its request, and its answer
// once made, against its client's address (host/unread.hpp) until gRPC is
// done with them: the answer read, or the call ended. gRPC holds the
// request until then, parsed (several times its bytes on the wire), and a
// call may wait for its world's thread behind others: without counting
// requests, clients could park 64 MiB of them at each of 64 worlds.

#include <google/protobuf/message_lite.h>
#include <grpcpp/grpcpp.h>

#include <string>

#include "host/unread.hpp"

namespace linkage::server {

class Answer final : public grpc::ServerUnaryReactor {
 public:
  // The call's reactor, its request `request_bytes` long. A call from an
  // address over its share of unread answers (or to a server over its
  // total) is answered RESOURCE_EXHAUSTED at once: admitted() is then
  // false, and the call must not run.
  static Answer* start(grpc::CallbackServerContext* ctx, Unread& unread, std::size_t request_bytes = 0);
  bool admitted() const { return admitted_; }

  // Answers a read: `answer` is sent if the client's address may hold it
  // too, or else RESOURCE_EXHAUSTED, which a read can get after it ran
  // since it changed nothing.
  void read(const grpc::Status& status, const google::protobuf::MessageLite& answer);
  // Answers a call that may have changed a world: `answer` is sent and
  // counted whatever the limits, so a change is never reported refused.
  void changed(const grpc::Status& status, const google::protobuf::MessageLite& answer);
  // Finish(status) answers with no message (gRPC sends none with an error).

  void OnDone() override;

 private:
  Answer(Unread& unread, std::string peer) : unread_(unread), peer_(std::move(peer)) {}

  Unread& unread_;
  const std::string peer_;  // its address
  std::size_t held_ = 0;    // bytes counted for it
  bool admitted_ = false;
};

}  // namespace linkage::server
