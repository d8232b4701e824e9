// WorldService: worlds, their clocks, scenes, batches and state streams.
#include <cmath>
#include <thread>

#include "commands.hpp"
#include "convert/convert.hpp"
#include "convert/scene_io.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"
#include "state_stream.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

// The most ticks one Step call may ask for.
constexpr std::uint32_t kMaxStepTicks = 1000000;

// A stream refused before it started.
class RefusedStream final : public grpc::ServerWriteReactor<v1::Snapshot> {
 public:
  explicit RefusedStream(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

Status check_limits(const v1::WorldLimits& asked, const ServerLimits& server, Limits& out) {
  out = server.world;
  auto take = [](bool has, int value, int cap, const char* field, int& into) -> Status {
    if (!has) return ok_status();
    if (value < 1 || value > cap)
      return Error{ErrorCode::invalid_argument, std::string("limits.") + field + ": must be 1 to " +
                                                    std::to_string(cap) + " on this server, got " + std::to_string(value)};
    into = value;
    return ok_status();
  };
  if (Status s = take(asked.has_max_bodies(), asked.max_bodies(), server.world.max_bodies, "max_bodies", out.max_bodies); !s)
    return s;
  if (Status s = take(asked.has_max_constraints(), asked.max_constraints(), server.world.max_constraints,
                      "max_constraints", out.max_constraints);
      !s)
    return s;
  return take(asked.has_max_forces(), asked.max_forces(), server.world.max_forces, "max_forces", out.max_forces);
}

// Replaces the world's contents, keeping its clock and subscribers.
void replace_contents(State& s, World world, Names names, Footprint footprint) {
  s.world = std::move(world);
  s.names = std::move(names);
  s.footprint = std::move(footprint);
  s.changes.replaced();
}

class WorldServiceImpl final : public v1::WorldService::CallbackService {
 public:
  WorldServiceImpl(Registry& registry, WorldSettings defaults) : registry_(registry), defaults_(defaults) {}

  ServerUnaryReactor* CreateWorld(CallbackServerContext* ctx, const v1::CreateWorldRequest* req,
                                  v1::CreateWorldResponse* resp) override {
    ServerUnaryReactor* reactor = ctx->DefaultReactor();
    auto fail = [&](const Error& e) {
      reactor->Finish(to_grpc(e));
      return reactor;
    };
    Result<WorldSettings> settings = settings_from_proto(req->settings(), defaults_);
    if (!settings) return fail(settings.error());
    Result<World> world = World::create(settings.value());
    if (!world) return fail(Error{world.error().code, "settings." + world.error().message});
    Limits limits;
    if (Status ok = check_limits(req->limits(), registry_.limits(), limits); !ok) return fail(ok.error());
    Result<std::shared_ptr<WorldHost>> host =
        registry_.create(req->name(), std::move(world.value()), Names{}, limits, req->paused());
    if (!host) return fail(host.error());
    WorldHost* h = host.value().get();
    h->post([reactor, resp, h](State& s) {
              describe(h->name(), s, h->subscribers(), resp->mutable_world());
              reactor->Finish(grpc::Status::OK);
            },
            [reactor, name = req->name()] { reactor->Finish(world_gone(name)); });
    return reactor;
  }

  ServerUnaryReactor* ListWorlds(CallbackServerContext* ctx, const v1::ListWorldsRequest*,
                                 v1::ListWorldsResponse* resp) override {
    // Each world describes itself on its own thread; the last to answer finishes the call.
    struct Gather {
      std::mutex mutex;
      std::vector<v1::World> worlds;
      std::size_t waiting = 0;
    };
    ServerUnaryReactor* reactor = ctx->DefaultReactor();
    const auto hosts = registry_.all();
    if (hosts.empty()) {
      reactor->Finish(grpc::Status::OK);
      return reactor;
    }
    auto gather = std::make_shared<Gather>();
    gather->waiting = hosts.size();
    auto done = [gather, reactor, resp](std::optional<v1::World> world) {
      std::lock_guard lock(gather->mutex);
      if (world) gather->worlds.push_back(std::move(*world));
      if (--gather->waiting > 0) return;
      std::sort(gather->worlds.begin(), gather->worlds.end(),
                [](const v1::World& a, const v1::World& b) { return a.name() < b.name(); });
      for (v1::World& w : gather->worlds) *resp->add_worlds() = std::move(w);
      reactor->Finish(grpc::Status::OK);
    };
    for (const auto& host : hosts) {
      WorldHost* h = host.get();
      h->post(
          [h, done](State& s) {
            v1::World w;
            describe(h->name(), s, h->subscribers(), &w);
            done(std::move(w));
          },
          [done] { done(std::nullopt); });
    }
    return reactor;
  }

  ServerUnaryReactor* GetWorld(CallbackServerContext* ctx, const v1::GetWorldRequest* req,
                               v1::GetWorldResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost& h) {
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateWorld(CallbackServerContext* ctx, const v1::UpdateWorldRequest* req,
                                  v1::UpdateWorldResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost& h) -> Status {
      Result<WorldSettings> settings = settings_from_proto(req->settings(), s.world.settings());
      if (!settings) return settings.error();
      if (Status ok = s.world.set_settings(settings.value()); !ok) return Error{ok.error().code, "settings." + ok.error().message};
      s.changes.settings_changed();
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* DeleteWorld(CallbackServerContext* ctx, const v1::DeleteWorldRequest* req,
                                  v1::DeleteWorldResponse*) override {
    ServerUnaryReactor* reactor = ctx->DefaultReactor();
    std::shared_ptr<WorldHost> host = registry_.take(req->world());
    if (!host) {
      reactor->Finish(no_world(req->world()));
      return reactor;
    }
    // Stopping joins the world's thread (up to one step): not on a gRPC
    // thread. The call stays open until then, so shutdown waits for it.
    std::thread([host = std::move(host), reactor]() mutable {
      host->stop("world '" + host->name() + "' was deleted");
      host.reset();
      reactor->Finish(grpc::Status::OK);
    }).detach();
    return reactor;
  }

  ServerUnaryReactor* Pause(CallbackServerContext* ctx, const v1::PauseRequest* req, v1::PauseResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost& h) {
      s.paused = true;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* Resume(CallbackServerContext* ctx, const v1::ResumeRequest* req,
                             v1::ResumeResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost& h) {
      s.paused = false;
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* Step(CallbackServerContext* ctx, const v1::StepRequest* req, v1::StepResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost& h) -> Status {
      if (!s.paused)
        return Error{ErrorCode::failed_precondition, "world '" + h.name() + "' is running; Pause it before stepping it"};
      if (req->ticks() < 1 || req->ticks() > kMaxStepTicks)
        return Error{ErrorCode::invalid_argument,
                     "ticks: must be 1 to " + std::to_string(kMaxStepTicks) + ", got " + std::to_string(req->ticks())};
      h.advance(s, req->ticks());
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* Reset(CallbackServerContext* ctx, const v1::ResetRequest* req, v1::ResetResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost& h) -> Status {
      if (s.reset_point) {
        s.world.restore(s.reset_point->world);
        s.names = s.reset_point->names;
        s.footprint = Footprint::of(s.world, s.names);
        s.changes.replaced();
      } else {
        replace_contents(s, World::create(s.world.settings()).value(), Names{}, Footprint{});
      }
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* LoadScene(CallbackServerContext* ctx, const v1::LoadSceneRequest* req,
                                v1::LoadSceneResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [this, req, resp](State& s, WorldHost& h) -> Status {
      const SceneLimits limits{s.limits.max_bodies, s.limits.max_constraints, s.limits.max_forces, s.limits.max_bytes};
      Result<LoadedScene> loaded = load_scene(req->scene(), defaults_, limits);
      if (!loaded) return prefixed(loaded.error(), "scene");
      s.reset_point = std::make_shared<State::ResetPoint>(State::ResetPoint{loaded.value().world.save(), loaded.value().names});
      replace_contents(s, std::move(loaded.value().world), std::move(loaded.value().names),
                       std::move(loaded.value().footprint));
      describe(h.name(), s, h.subscribers(), resp->mutable_world());
      return ok_status();
    });
  }

  ServerUnaryReactor* SaveScene(CallbackServerContext* ctx, const v1::SaveSceneRequest* req,
                                v1::SaveSceneResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost&) {
      *resp->mutable_scene() = save_scene(s.world, s.names);
      return ok_status();
    });
  }

  ServerUnaryReactor* ApplyBatch(CallbackServerContext* ctx, const v1::ApplyBatchRequest* req,
                                 v1::ApplyBatchResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      resp->set_tick(s.tick);
      return atomically(s, [&]() -> Status {
        for (int i = 0; i < req->commands_size(); ++i) {
          if (Status ok = run_command(s, req->commands(i), resp->add_results()); !ok) {
            resp->clear_results();
            return prefixed(ok.error(), "commands[" + std::to_string(i) + "]");
          }
        }
        return ok_status();
      });
    });
  }

  grpc::ServerWriteReactor<v1::Snapshot>* StreamState(CallbackServerContext*,
                                                      const v1::StreamStateRequest* req) override {
    std::shared_ptr<WorldHost> host = registry_.find(req->world());
    if (!host) return new RefusedStream(no_world(req->world()));
    const double asked = req->rate_hz();
    if (!std::isfinite(asked) || asked < 0.0)
      return new RefusedStream({grpc::StatusCode::INVALID_ARGUMENT,
                                "rate_hz: must be ≥ 0 (0: every tick), got " + std::to_string(asked)});
    if (!registry_.acquire_stream())
      return new RefusedStream({grpc::StatusCode::RESOURCE_EXHAUSTED,
                                "the server has its maximum of " + std::to_string(registry_.limits().max_streams) +
                                    " streams open (--max-streams)"});
    const double cap = registry_.limits().max_stream_rate;
    const double rate = asked == 0.0 ? cap : std::min(asked, cap);  // 0: every tick, up to the cap
    return StateStream::start(registry_, std::move(host), rate, req->constraints(), req->diagnostics());
  }

 private:
  Registry& registry_;
  const WorldSettings defaults_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_world_service(Registry& registry, WorldSettings defaults) {
  return std::make_unique<WorldServiceImpl>(registry, defaults);
}

}  // namespace linkage::server
