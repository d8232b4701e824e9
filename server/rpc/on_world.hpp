#pragma once
// Runs a unary call as a command on its world's tick thread.

#include <grpcpp/grpcpp.h>

#include <string>

#include "answer.hpp"
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

// Runs `fn(State&, WorldHost&)`, which returns linkage::Status and fills
// `resp`, on the world `req` names (held while the call waits), and answers
// through `answer`: a read's answer only if its client's address may hold it
// unread (Answer::read), a change's whatever the limits.
enum class Call { reads, changes };

template <class Request, class Response, class Fn>
grpc::ServerUnaryReactor* run_on_world(Call call, grpc::CallbackServerContext* ctx, Registry& registry,
                                       const Request& req, Response* resp, Fn fn) {
  const std::string& name = req.world();
  const std::size_t request_bytes = req.ByteSizeLong();
  Answer* answer = Answer::start(ctx, registry.unread(), request_bytes);
  if (!answer->admitted()) return answer;
  std::shared_ptr<WorldHost> host = registry.find(name);
  if (!host) {
    answer->Finish(no_world(name));
    return answer;
  }
  WorldHost* h = host.get();
  const bool posted = host->post(
      [call, ctx, answer, resp, h, fn](WorldHost::State& s) {
        // A caller that gave up while its call waited (its deadline passed,
        // or it cancelled) has its answer already: the call does not run,
        // so it changes nothing its caller cannot know of, and a flood of
        // calls that time out costs the world nothing.
        if (ctx->IsCancelled()) {
          answer->Finish(gave_up());
          return;
        }
        const grpc::Status status = to_grpc(fn(s, *h));
        // Before the answer: the caller's next GetWorld shows what it did.
        h->publish_summary(s);
        // Once what it changed is on disk (a durable world, --data-dir).
        h->reply([call, answer, resp, status](const std::string& unsaved) {
          if (call == Call::reads) {
            answer->read(status, *resp);
          } else if (unsaved.empty() || !status.ok()) {
            answer->changed(status, *resp);
          } else {
            answer->Finish({grpc::StatusCode::UNAVAILABLE,
                            "the change was made but could not be saved (" + unsaved +
                                "); it may be lost if the server restarts"});
          }
        });
      },
      [answer, name] { answer->Finish(world_gone(name)); }, request_bytes);
  if (!posted) answer->Finish(world_busy(name));
  return answer;
}

// A call that may change the world.
template <class Request, class Response, class Fn>
grpc::ServerUnaryReactor* on_world(grpc::CallbackServerContext* ctx, Registry& registry, const Request& req,
                                   Response* resp, Fn fn) {
  return run_on_world(Call::changes, ctx, registry, req, resp, std::move(fn));
}

// A call that only reads the world: its answer may be refused once made.
template <class Request, class Response, class Fn>
grpc::ServerUnaryReactor* read_world(grpc::CallbackServerContext* ctx, Registry& registry, const Request& req,
                                     Response* resp, Fn fn) {
  return run_on_world(Call::reads, ctx, registry, req, resp, std::move(fn));
}

}  // namespace linkage::server
