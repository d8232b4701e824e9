#include "answer.hpp"

#include "host/peer.hpp"

namespace linkage::server {

Answer* Answer::start(grpc::CallbackServerContext* ctx, Unread& unread, std::size_t request_bytes) {
  auto* answer = new Answer(unread, peer_address(ctx->peer()));
  const std::size_t bytes = Unread::kCallBytes + request_bytes;
  answer->admitted_ = unread.take(answer->peer_, bytes);
  if (answer->admitted_) {
    answer->held_ = bytes;
  } else {
    unread.refused(answer->peer_);
    answer->Finish({grpc::StatusCode::RESOURCE_EXHAUSTED, unread.refusal(answer->peer_)});
  }
  return answer;
}

void Answer::read(const grpc::Status& status, const google::protobuf::MessageLite& answer) {
  if (!status.ok()) return Finish(status);
  const std::size_t bytes = answer.ByteSizeLong();
  if (!unread_.take(peer_, bytes)) {
    unread_.refused(peer_);
    return Finish({grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "the answer (" + std::to_string(bytes) + " bytes) would not fit: " + unread_.refusal(peer_)});
  }
  held_ += bytes;
  Finish(status);
}

void Answer::changed(const grpc::Status& status, const google::protobuf::MessageLite& answer) {
  if (status.ok()) {
    const std::size_t bytes = answer.ByteSizeLong();
    unread_.add(peer_, bytes);
    held_ += bytes;
  }
  Finish(status);
}

void Answer::OnDone() {
  unread_.give_back(peer_, held_);
  delete this;
}

}  // namespace linkage::server
