// WorldService: worlds, their clocks, scenes, batches and state streams.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "convert/convert.hpp"
#include "convert/field_mask.hpp"
#include "convert/scene_io.hpp"
#include "durable/replay.hpp"
#include "durable/world_store.hpp"
#include "host/describe.hpp"
#include "host/peer.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "replay_threads.hpp"
#include "services.hpp"
#include "state_stream.hpp"
#include "world_limits.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;
using State = WorldHost::State;

// The most ticks one Step call may ask for.
constexpr std::uint32_t kMaxStepTicks = 1000000;

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

v1::StepEnd step_end_to_proto(StepEnd end) {
  switch (end) {
    case StepEnd::done: return v1::STEP_END_DONE;
    case StepEnd::deadline: return v1::STEP_END_DEADLINE;
    case StepEnd::resumed: return v1::STEP_END_RESUMED;
    case StepEnd::halted: return v1::STEP_END_HALTED;
    case StepEnd::cancelled: break;  // answered with CANCELLED, not a response
  }
  return v1::STEP_END_UNSPECIFIED;
}

// A stream refused before it started.
class RefusedStream final : public grpc::ServerWriteReactor<v1::Snapshot> {
 public:
  explicit RefusedStream(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

// Forks at a past tick replaying at once (ReplayThreads): each replay
// keeps a core busy.
constexpr int kForkReplays = 2;

// The world `host` at `tick`, rebuilt from its files (durable/replay.hpp),
// with `base`'s limits beside its own.
// Replays at most --keep-checkpoints checkpoints' worth of ticks, on the
// calling thread, until `stop` says to; the world's own thread goes on
// meanwhile (its journal is written through every tick, so the files reach
// its last one).
Result<WorldHost::State> fork_at(WorldHost& host, std::uint64_t tick, const Limits& base,
                                 const durable::StopReplay& stop) {
  if (!host.store())
    return field_error(ErrorCode::failed_precondition, "tick",
                       "world " + quote(host.name()) +
                           " keeps no recording to fork from (start linkaged with --data-dir; without a tick "
                           "ForkWorld copies the world as it is now)");
  // Twice: a checkpoint taken meanwhile may remove a file the first reading wanted.
  Result<durable::Replayed> replayed = Error{};
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<durable::Dir> dir = durable::Dir::open(host.store()->path(), false);
    if (!dir) return dir.error();
    replayed = durable::replay(dir.value(), base, tick, stop);
    if (replayed || stop()) break;
  }
  if (!replayed) return field_error(ErrorCode::failed_precondition, "tick", replayed.error().message);
  return std::move(replayed.value().state);
}

class WorldServiceImpl final : public v1::WorldService::CallbackService {
 public:
  WorldServiceImpl(Registry& registry, WorldSettings defaults) : registry_(registry), defaults_(defaults) {}

  ServerUnaryReactor* CreateWorld(CallbackServerContext* ctx, const v1::CreateWorldRequest* req,
                                  v1::CreateWorldResponse* resp) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    auto fail = [&](const Error& e) {
      reactor->Finish(to_grpc(e));
      return reactor;
    };
    Result<WorldSettings> settings = settings_from_proto(req->settings(), defaults_);
    if (!settings) return fail(settings.error());
    if (Status ok = check_settings(settings.value(), registry_.limits().settings); !ok) return fail(ok.error());
    Result<World> world = World::create(settings.value());
    if (!world) return fail(prefixed(world.error(), "settings"));
    Result<Limits> limits = limits_from_proto(req->limits(), registry_.limits());
    if (!limits) return fail(limits.error());
    Result<std::shared_ptr<WorldHost>> host =
        registry_.create(req->name(), std::move(world.value()), Names{}, limits.value(), req->paused());
    if (!host) return fail(host.error());
    // The new world's summary is its whole description: no need to wait for its thread.
    *resp->mutable_world() = host.value()->summary();
    reactor->changed(grpc::Status::OK, *resp);
    return reactor;
  }

  // ListWorlds and GetWorld read the summaries the worlds publish after every
  // tick and command: they never wait for a world's thread, however busy.
  ServerUnaryReactor* ListWorlds(CallbackServerContext* ctx, const v1::ListWorldsRequest*,
                                 v1::ListWorldsResponse* resp) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    for (const auto& host : registry_.all()) *resp->add_worlds() = host->summary();  // by name
    reactor->read(grpc::Status::OK, *resp);
    return reactor;
  }

  ServerUnaryReactor* GetWorld(CallbackServerContext* ctx, const v1::GetWorldRequest* req,
                               v1::GetWorldResponse* resp) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    std::shared_ptr<WorldHost> host = registry_.find(req->world());
    if (!host) {
      reactor->Finish(no_world(req->world()));
      return reactor;
    }
    *resp->mutable_world() = host->summary();
    reactor->read(grpc::Status::OK, *resp);
    return reactor;
  }

  ServerUnaryReactor* UpdateWorld(CallbackServerContext* ctx, const v1::UpdateWorldRequest* req,
                                  v1::UpdateWorldResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [this, req, resp](State& s, WorldHost& h) -> Status {
      // With a mask, the named settings over the world's own (all of them set).
      v1::WorldSettings asked = req->settings();
      if (req->update_mask().paths_size() > 0) {
        settings_to_proto(s.world.core().settings(), &asked);
        if (Status ok = merge_masked(req->settings(), req->update_mask(), &asked); !ok) return ok;
      }
      Result<WorldSettings> settings = settings_from_proto(asked, s.world.core().settings());
      if (!settings) return settings.error();
      if (Status ok = check_settings(settings.value(), registry_.limits().settings); !ok) return ok;
      Result<Limits> limits = updated_limits(req->limits(), registry_.limits(), s.world);
      if (!limits) return limits.error();
      if (Status ok = s.world.update(settings.value(), limits.value()); !ok) return ok;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* DeleteWorld(CallbackServerContext* ctx, const v1::DeleteWorldRequest* req,
                                  v1::DeleteWorldResponse*) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    // Answered at once: the world is gone from the API, its streams have
    // ended and its waiting calls are answered; its thread ends after the
    // step it may be in, whatever that step costs.
    const bool removed = registry_.remove(req->world(), "world " + quote(req->world()) + " was deleted");
    reactor->Finish(removed ? grpc::Status::OK : no_world(req->world()));
    return reactor;
  }

  ServerUnaryReactor* Pause(CallbackServerContext* ctx, const v1::PauseRequest* req, v1::PauseResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost& h) {
      s.paused = true;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* Resume(CallbackServerContext* ctx, const v1::ResumeRequest* req,
                             v1::ResumeResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost& h) {
      s.paused = false;
      s.halt = {};  // whatever paused it by itself is history
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* Step(CallbackServerContext* ctx, const v1::StepRequest* req, v1::StepResponse* resp) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    if (req->ticks() < 1 || req->ticks() > kMaxStepTicks) {
      reactor->Finish({grpc::StatusCode::INVALID_ARGUMENT, "ticks: must be 1 to " + std::to_string(kMaxStepTicks) +
                                                               ", got " + std::to_string(req->ticks())});
      return reactor;
    }
    std::shared_ptr<WorldHost> host = registry_.find(req->world());
    if (!host) {
      reactor->Finish(no_world(req->world()));
      return reactor;
    }
    // The world's loop runs the ticks one at a time (WorldHost::start_step)
    // and answers when they are done, or earlier (StepEnd).
    WorldHost* h = host.get();
    auto gone = [reactor, name = req->world()] { reactor->Finish(world_gone(name)); };
    const bool posted = h->post(
        [ctx, reactor, req, resp, h, gone](State& s) {
          StepJob job;
          job.ticks = req->ticks();
          job.cancelled = [ctx] { return ctx->IsCancelled(); };
          job.deadline = ctx->deadline();
          job.finish = [reactor, resp, h](State& s, std::uint32_t done, StepEnd end) {
            describe(h->name(), s, h->subscribers(), resp->mutable_world());
            resp->set_ticks(done);
            resp->set_ended(step_end_to_proto(end));
            h->publish_summary(s);
            reactor->changed(end == StepEnd::cancelled
                                 ? grpc::Status(grpc::StatusCode::CANCELLED,
                                                "Step cancelled by its caller after " + std::to_string(done) + " ticks")
                                 : grpc::Status::OK,
                             *resp);
          };
          job.dropped = gone;
          const Status started = h->start_step(s, std::move(job));
          h->publish_summary(s);
          if (!started) reactor->Finish(to_grpc(started));
        },
        gone);
    if (!posted) reactor->Finish(world_busy(req->world()));
    return reactor;
  }

  ServerUnaryReactor* Reset(CallbackServerContext* ctx, const v1::ResetRequest* req, v1::ResetResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost& h) -> Status {
      if (Status ok = s.world.reset(); !ok) return ok;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* LoadScene(CallbackServerContext* ctx, const v1::LoadSceneRequest* req,
                                v1::LoadSceneResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [this, req, resp](State& s, WorldHost& h) -> Status {
      const Limits& l = s.world.limits();
      const SceneLimits limits{l.max_bodies, l.max_constraints, l.max_forces, l.max_bytes};
      Result<LoadedScene> loaded = load_scene(req->scene(), defaults_, limits);
      if (!loaded) return prefixed(loaded.error(), "scene");
      if (Status ok = check_settings(loaded.value().world.settings(), registry_.limits().settings, "scene.settings"); !ok)
        return ok;
      if (Status ok = s.world.load_scene(std::move(loaded.value())); !ok) return ok;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* SaveScene(CallbackServerContext* ctx, const v1::SaveSceneRequest* req,
                                v1::SaveSceneResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost&) {
      *resp->mutable_scene() = save_scene(s.world.core(), s.world.names());
      return ok_status();
    });
  }

  ServerUnaryReactor* ApplyBatch(CallbackServerContext* ctx, const v1::ApplyBatchRequest* req,
                                 v1::ApplyBatchResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      resp->set_tick(s.tick);
      return s.world.apply_batch(req->commands(), resp->mutable_results());
    });
  }

  ServerUnaryReactor* ForkWorld(CallbackServerContext* ctx, const v1::ForkWorldRequest* req,
                                v1::ForkWorldResponse* resp) override {
    Answer* reactor = Answer::start(ctx, registry_.unread());
    if (!reactor->admitted()) return reactor;
    std::shared_ptr<WorldHost> source = registry_.find(req->world());
    if (!source) {
      reactor->Finish(no_world(req->world()));
      return reactor;
    }
    // The copy, paused and with nothing halted, becomes a world of its own.
    auto adopt = [this, reactor, resp, name = req->name()](WorldHost::State copy) {
      copy.world.record_to(nullptr);
      copy.paused = true;
      copy.halt = {};
      Result<std::shared_ptr<WorldHost>> host = registry_.create(name, std::move(copy));
      if (!host) {
        reactor->Finish(to_grpc(host.error()));
        return;
      }
      *resp->mutable_world() = host.value()->summary();
      reactor->changed(grpc::Status::OK, *resp);
    };
    if (!req->has_tick()) {
      // Now: a copy taken on the world's thread, between two ticks.
      auto copy = [ctx, reactor, adopt](State& s) {
        if (ctx->IsCancelled()) reactor->Finish(gave_up());  // no world its caller would not know of
        else adopt(s);
      };
      if (!source->post(copy, [reactor, name = req->world()] { reactor->Finish(world_gone(name)); }))
        reactor->Finish(world_busy(req->world()));
      return reactor;
    }
    // At a tick: a replay, on a thread of its own, that ends with the call.
    auto replay = [this, ctx, reactor, source = std::move(source), tick = req->tick(), adopt]() mutable {
      grpc::Status gave_up;
      auto stop = [ctx, &gave_up] {
        if (ctx->IsCancelled()) gave_up = {grpc::StatusCode::CANCELLED, "ForkWorld was cancelled by its caller"};
        else if (std::chrono::system_clock::now() >= ctx->deadline())
          gave_up = {grpc::StatusCode::DEADLINE_EXCEEDED, "ForkWorld passed its deadline"};
        return !gave_up.ok();
      };
      Result<WorldHost::State> past = fork_at(*source, tick, registry_.limits().world, stop);
      source.reset();
      if (!gave_up.ok()) {
        const std::string where = past ? std::string() : " (" + past.error().message + ")";
        past = Error{};  // the partial replay goes before the answer
        reactor->Finish({gave_up.error_code(), gave_up.error_message() + " replaying to tick " + std::to_string(tick) +
                                                   where + "; no world was made"});
        return;
      }
      if (!past) {
        reactor->Finish(to_grpc(past.error()));
        return;
      }
      adopt(std::move(past.value()));
    };
    if (!replays_.run(std::move(replay)))
      reactor->Finish({grpc::StatusCode::RESOURCE_EXHAUSTED,
                       "ForkWorld: " + std::to_string(replays_.most()) +
                           " forks at a past tick are replaying already on this server; try again when one has "
                           "answered, or fork without a tick (a copy of the world as it is now)"});
    return reactor;
  }

  grpc::ServerWriteReactor<v1::Snapshot>* StreamState(CallbackServerContext* ctx,
                                                      const v1::StreamStateRequest* req) override {
    std::string peer = peer_address(ctx->peer());
    std::shared_ptr<WorldHost> host = registry_.find(req->world());
    if (!host) return new RefusedStream(no_world(req->world()));
    const double asked = req->rate_hz();
    const double least = registry_.limits().min_stream_rate;
    if (!std::isfinite(asked) || asked < 0.0 || (asked > 0.0 && asked < least))
      return new RefusedStream({grpc::StatusCode::INVALID_ARGUMENT,
                                "rate_hz: must be 0 (every tick) or at least " + number(least) +
                                    " Hz on this server (--min-stream-rate), got " + number(asked)});
    if (!registry_.unread().take(peer, Unread::kCallBytes)) {
      registry_.unread().refused(peer);
      return new RefusedStream({grpc::StatusCode::RESOURCE_EXHAUSTED, registry_.unread().refusal(peer)});
    }
    if (!registry_.acquire_stream()) {
      registry_.unread().give_back(peer, Unread::kCallBytes);
      return new RefusedStream({grpc::StatusCode::RESOURCE_EXHAUSTED,
                                "the server has its maximum of " + std::to_string(registry_.limits().max_streams) +
                                    " streams open (--max-streams)"});
    }
    const double cap = registry_.limits().max_stream_rate;
    const double rate = asked == 0.0 ? cap : std::min(asked, cap);  // 0: every tick, up to the cap
    return StateStream::start(registry_, std::move(host), std::move(peer), rate, req->constraints(),
                              req->diagnostics(), req->contacts());
  }

 private:
  Registry& registry_;
  const WorldSettings defaults_;
  ReplayThreads replays_{kForkReplays};  // after registry_, which its jobs use: they end first
};

}  // namespace

std::unique_ptr<grpc::Service> make_world_service(Registry& registry, WorldSettings defaults) {
  return std::make_unique<WorldServiceImpl>(registry, defaults);
}

}  // namespace linkage::server
