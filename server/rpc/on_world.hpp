#pragma once
// Runs a unary call as a command on its world's tick thread.

#include <grpcpp/grpcpp.h>

#include <string>

#include "host/registry.hpp"
#include "status.hpp"

namespace linkage::server {

inline grpc::Status no_world(const std::string& name) {
  return {grpc::StatusCode::NOT_FOUND, "world: no world named " + quote(name) + " (ListWorlds shows them)"};
}

inline grpc::Status world_gone(const std::string& name) {
  return {grpc::StatusCode::UNAVAILABLE, "world " + quote(name) + " was deleted or the server is stopping"};
}

inline grpc::Status world_busy(const std::string& name) {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "world " + quote(name) + " has as many calls waiting for its thread as it takes (" +
              std::to_string(WorldHost::kMaxWaiting) + ", or " + std::to_string(WorldHost::kMaxWaitingBytes >> 20) +
              " MiB of requests); send fewer at once, or try again when they are answered"};
}

inline grpc::Status gave_up() {
  return {grpc::StatusCode::CANCELLED, "the caller gave up (deadline or cancellation) before the call ran; it did not"};
}

// `fn(State&, WorldHost&)` returns linkage::Status and fills the response;
// `req` names the world and is held while the call waits.
template <class Request, class Fn>
grpc::ServerUnaryReactor* on_world(grpc::CallbackServerContext* ctx, Registry& registry, const Request& req, Fn fn) {
  const std::string& name = req.world();
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  std::shared_ptr<WorldHost> host = registry.find(name);
  if (!host) {
    reactor->Finish(no_world(name));
    return reactor;
  }
  WorldHost* h = host.get();
  const bool posted = host->post(
      [ctx, reactor, h, fn](WorldHost::State& s) {
        // A caller that gave up while its call waited (its deadline passed,
        // or it cancelled) has its answer already: the call does not run,
        // so it changes nothing its caller cannot know of, and a flood of
        // calls that time out costs the world nothing.
        if (ctx->IsCancelled()) {
          reactor->Finish(gave_up());
          return;
        }
        const grpc::Status status = to_grpc(fn(s, *h));
        // Before the answer: the caller's next GetWorld shows what it did.
        h->publish_summary(s);
        // Once what it changed is on disk (a durable world, --data-dir).
        h->reply([reactor, status](const std::string& unsaved) {
          if (unsaved.empty() || !status.ok()) {
            reactor->Finish(status);
          } else {
            reactor->Finish({grpc::StatusCode::UNAVAILABLE,
                             "the change was made but could not be saved (" + unsaved +
                                 "); it may be lost if the server restarts"});
          }
        });
      },
      [reactor, name] { reactor->Finish(world_gone(name)); }, req.ByteSizeLong());
  if (!posted) reactor->Finish(world_busy(name));
  return reactor;
}

}  // namespace linkage::server
