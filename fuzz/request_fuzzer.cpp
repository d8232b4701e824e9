// libFuzzer over linkaged's request path: every input is a few calls (see
// calls.hpp), each sent as a real gRPC call over an in-process channel to the
// server's own services (parsing, conversion, the commands on a live world's
// tick thread). Worlds start each input from a seed scene (fuzz/world.json)
// holding every kind of body, constraint and force. The run fails on any
// crash or sanitizer report, and on:
//   - a call not answered within 5 s (a hang), or answered UNIMPLEMENTED,
//     INTERNAL, UNKNOWN or DATA_LOSS (a request the server did not handle);
//   - a refusal with no message, or one longer than 2 KiB (it echoes input);
//   - a refused call that changed any world: every world's state hash, ids,
//     names, settings, definitions, limits, clock, topology version and
//     footprint are compared before and after, on the world's own thread.
// After a call that succeeds every world is paused again, so that only the
// calls change the worlds.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <sstream>

#include "calls.hpp"
#include "convert/convert.hpp"
#include "convert/scene_io.hpp"
#include "host/registry.hpp"
#include "rpc/services.hpp"

namespace linkage::fuzz {
namespace {

using server::WorldHost;
using State = WorldHost::State;
using namespace std::chrono_literals;

constexpr int kMessageBytes = 256 * 1024;
constexpr std::size_t kMaxCalls = 8;
constexpr auto kDeadline = 5s;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "\n*** request fuzzer: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Everything about a world that a command could change.
std::string fingerprint(const State& s) {
  const World& world = s.world.core();
  const server::Limits& limits = s.world.limits();
  std::ostringstream out;
  out << "state_hash " << world.state_hash() << " tick " << s.tick << " paused " << s.paused << " topology "
      << s.world.changes().version() << " footprint " << s.world.footprint().bytes() << " reset_point " << s.world.reset_point()
      << " limits " << limits.max_bodies << "/" << limits.max_constraints << "/" << limits.max_forces << "/"
      << limits.max_bytes << "\n";
  v1::WorldSettings settings;
  server::settings_to_proto(world.settings(), &settings);
  out << "settings " << settings.ShortDebugString() << "\n";
  for (const BodyId id : world.bodies()) {
    v1::Body b;
    server::body_to_proto(world.body(id).value(), s.world.names().body_name(id), &b);
    out << "body " << b.ShortDebugString() << "\n";
  }
  for (const ConstraintId id : world.constraints()) {
    v1::Constraint c;
    server::constraint_to_proto(world.constraint(id).value(), world, s.world.names(), &c);
    out << "constraint " << c.ShortDebugString() << "\n";
  }
  for (const ForceId id : world.forces()) {
    v1::Force f;
    server::force_to_proto(world.force(id).value(), &f);
    out << "force " << f.ShortDebugString() << "\n";
  }
  return out.str();
}

// Runs `fn` on the world's tick thread and waits for it.
template <class T>
T on_world_thread(WorldHost& host, std::function<T(State&)> fn, T if_gone) {
  std::promise<T> done;
  host.post([&](State& s) { done.set_value(fn(s)); }, [&] { done.set_value(if_gone); });
  return done.get_future().get();
}

class Harness {
 public:
  Harness() {
    server::ServerLimits limits;
    limits.max_worlds = 4;
    limits.max_streams = 4;
    limits.world = {.max_bodies = 64, .max_constraints = 128, .max_forces = 64,
                    .max_bytes = server::footprint_limit(kMessageBytes)};
    registry_ = std::make_unique<server::Registry>(limits);
    services_ = std::make_unique<server::Services>(*registry_, WorldSettings{});
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(kMessageBytes);
    builder.SetMaxSendMessageSize(kMessageBytes);
    services_->register_with(builder);
    server_ = builder.BuildAndStart();
    if (!server_) fail("the server did not start");
    stub_ = std::make_unique<grpc::GenericStub>(server_->InProcessChannel(grpc::ChannelArguments()));

    std::ifstream in(LINKAGE_FUZZ_WORLD);
    std::stringstream text;
    text << in.rdbuf();
    Result<v1::Scene> scene = server::parse_scene_json(text.str());
    if (!scene) fail(std::string(LINKAGE_FUZZ_WORLD) + ": " + scene.error().message);
    Result<server::LoadedScene> seed = server::load_scene(scene.value());
    if (!seed) fail(std::string(LINKAGE_FUZZ_WORLD) + ": " + seed.error().message);
    seed_ = std::make_unique<server::LoadedScene>(std::move(seed.value()));
  }

  // Every input starts from the same worlds: "fuzz" from the seed scene (also
  // its reset point) and an empty "other", both paused.
  void reset() {
    registry_->stop_all("the next input");
    const server::Limits limits = registry_->limits().world;
    auto fuzz = registry_->create("fuzz", seed_->world, seed_->names, limits, true);
    auto other = registry_->create("other", World::create().value(), {}, limits, true);
    if (!fuzz || !other) fail("cannot create the worlds");
    on_world_thread<bool>(*fuzz.value(), [](State& s) {
      s.world.mark_reset_point();
      return true;
    }, false);
  }

  void run(const Call& call) {
    const std::map<std::string, std::string> before = worlds();
    const grpc::Status status = call.stream ? stream(call) : unary(call);
    const std::string said = call.method + " answered " + std::to_string(status.error_code()) + " " +
                             status.error_message();
    switch (status.error_code()) {
      case grpc::StatusCode::OK: pause_all(); return;
      case grpc::StatusCode::DEADLINE_EXCEEDED: fail(call.method + ": no answer within 5 s");
      case grpc::StatusCode::UNIMPLEMENTED:
      case grpc::StatusCode::INTERNAL:
      case grpc::StatusCode::UNKNOWN:
      case grpc::StatusCode::DATA_LOSS: fail("unexpected status: " + said);
      default: break;
    }
    if (status.error_message().empty()) fail("a refusal without a message: " + said);
    if (status.error_message().size() > 2048) fail("a refusal's message of " + std::to_string(status.error_message().size()) + " bytes: " + said.substr(0, 300));
    const std::map<std::string, std::string> after = worlds();
    if (after != before) {
      std::string diff = said + "\nbut changed the worlds:\n";
      for (const auto& [name, was] : before)
        if (!after.contains(name) || after.at(name) != was)
          diff += "--- " + name + " before\n" + was + "+++ after\n" + (after.contains(name) ? after.at(name) : "(gone)\n");
      for (const auto& [name, is] : after)
        if (!before.contains(name)) diff += "+++ new world " + name + "\n";
      fail(diff);
    }
  }

 private:
  std::map<std::string, std::string> worlds() {
    std::map<std::string, std::string> out;
    for (const auto& host : registry_->all())
      out[host->name()] = on_world_thread<std::string>(*host, fingerprint, "(stopping)");
    return out;
  }

  void pause_all() {
    for (const auto& host : registry_->all())
      on_world_thread<bool>(*host, [](State& s) { return s.paused = true; }, false);
  }

  grpc::Status unary(const Call& call) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kDeadline);
    grpc::Slice slice(call.request);
    grpc::ByteBuffer request(&slice, 1), response;
    std::promise<grpc::Status> done;
    stub_->UnaryCall(&ctx, call.method, grpc::StubOptions(), &request, &response,
                     [&done](grpc::Status s) { done.set_value(std::move(s)); });
    return done.get_future().get();
  }

  // A stream is accepted if its first frame comes; then it is cancelled.
  grpc::Status stream(const Call& call) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kDeadline);
    grpc::CompletionQueue cq;
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> rpc = stub_->PrepareCall(&ctx, call.method, &cq);
    void* tag = nullptr;
    bool ok = false;
    auto next = [&] {
      if (!cq.Next(&tag, &ok)) fail("the completion queue shut down");
      return ok;
    };
    rpc->StartCall(nullptr);
    next();
    grpc::Slice slice(call.request);
    rpc->WriteLast(grpc::ByteBuffer(&slice, 1), grpc::WriteOptions(), nullptr);
    next();
    grpc::ByteBuffer frame;
    rpc->Read(&frame, nullptr);
    const bool accepted = next();
    if (accepted) ctx.TryCancel();
    grpc::Status status;
    rpc->Finish(&status, nullptr);
    next();
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
    return accepted ? grpc::Status::OK : status;
  }

  std::unique_ptr<server::Registry> registry_;
  std::unique_ptr<server::Services> services_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::GenericStub> stub_;
  std::unique_ptr<server::LoadedScene> seed_;
};

Harness& harness() {
  static Harness* h = new Harness();  // lives until exit: worlds' threads may outlive any static's destructor
  return *h;
}

}  // namespace
}  // namespace linkage::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  linkage::fuzz::harness();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace linkage::fuzz;
  const std::vector<Call> calls = decode({reinterpret_cast<const char*>(data), size}, kMaxCalls);
  if (calls.empty()) return 0;
  harness().reset();
  for (const Call& call : calls) harness().run(call);
  return 0;
}
