#include "metrics.hpp"

#include <google/protobuf/descriptor.h>
#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <exception>
#include <map>
#include <mutex>

namespace linkage::server::metrics {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Step and stage times: 10 µs to 10 s, by about ×3.
const prometheus::Histogram::BucketBoundaries kStepBuckets{1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2,
                                                           3e-2, 0.1,  0.3,  1.0,  3.0,  10.0};
// RPC latency: 100 µs to 30 s.
const prometheus::Histogram::BucketBoundaries kRpcBuckets{1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1,
                                                          0.3,  1.0,  3.0,  10.0, 30.0};

// The worlds' counts and counters, from their published summaries.
class WorldsCollectable final : public prometheus::Collectable {
 public:
  explicit WorldsCollectable(const Registry& worlds) : worlds_(worlds) {}

  std::vector<MetricFamily> Collect() const override {
    struct Series {
      const char* name;
      const char* help;
      MetricType type;
      double (*value)(const v1::World&);
    };
    static const Series series[] = {
        {"linkage_world_ticks_total", "Ticks stepped (rate() of it is the world's tick rate).", MetricType::Counter,
         [](const v1::World& w) { return static_cast<double>(w.tick()); }},
        {"linkage_world_tick_rate_hz", "The tick rate the world is set to run at.", MetricType::Gauge,
         [](const v1::World& w) { return w.settings().tick_rate(); }},
        {"linkage_world_overruns_total", "Ticks whose step took longer than the tick period.", MetricType::Counter,
         [](const v1::World& w) { return static_cast<double>(w.overruns()); }},
        {"linkage_world_watchdog_pauses_total", "Times the watchdog paused the world.", MetricType::Counter,
         [](const v1::World& w) { return static_cast<double>(w.watchdog_halts()); }},
        {"linkage_world_divergences_total", "Times the world diverged and was put back.", MetricType::Counter,
         [](const v1::World& w) { return static_cast<double>(w.divergences()); }},
        {"linkage_world_bodies", "Bodies in the world.", MetricType::Gauge,
         [](const v1::World& w) { return static_cast<double>(w.body_count()); }},
        {"linkage_world_constraints", "Constraints in the world.", MetricType::Gauge,
         [](const v1::World& w) { return static_cast<double>(w.constraint_count()); }},
        {"linkage_world_forces", "Springs and applied forces in the world.", MetricType::Gauge,
         [](const v1::World& w) { return static_cast<double>(w.force_count()); }},
        {"linkage_world_subscribers", "Streams open on the world.", MetricType::Gauge,
         [](const v1::World& w) { return static_cast<double>(w.subscribers()); }},
        {"linkage_world_paused", "1 while the world is paused.", MetricType::Gauge,
         [](const v1::World& w) { return w.paused() ? 1.0 : 0.0; }},
    };
    std::vector<v1::World> summaries;
    for (const auto& host : worlds_.all()) summaries.push_back(host->summary());
    std::vector<MetricFamily> families;
    for (const Series& s : series) {
      MetricFamily f{s.name, s.help, s.type, {}};
      for (const v1::World& w : summaries) {
        ClientMetric m;
        m.label = {{"world", w.name()}};
        (s.type == MetricType::Counter ? m.counter.value : m.gauge.value) = s.value(w);
        f.metric.push_back(std::move(m));
      }
      families.push_back(std::move(f));
    }
    MetricFamily count{"linkage_worlds", "Worlds on the server.", MetricType::Gauge, {}};
    ClientMetric total;
    total.gauge.value = static_cast<double>(summaries.size());
    count.metric.push_back(total);
    families.push_back(std::move(count));
    const Unread::Counts unread = worlds_.unread().counts();
    const auto one = [&](const char* name, const char* help, MetricType type, double value) {
      MetricFamily f{name, help, type, {}};
      (type == MetricType::Counter ? f.metric.emplace_back().counter.value : f.metric.emplace_back().gauge.value) =
          value;
      families.push_back(std::move(f));
    };
    one("linkage_unread_bytes",
        "Bytes of answers and stream frames made for clients that they have not read yet (each call counts 8 KiB "
        "besides its answer).",
        MetricType::Gauge, static_cast<double>(unread.bytes));
    one("linkage_unread_peers", "Client addresses with answers or frames not yet read.", MetricType::Gauge,
        static_cast<double>(unread.peers));
    one("linkage_unread_refused_total",
        "Calls refused and stream frames skipped because their client's address (--max-unread-bytes-per-peer) or "
        "all clients (--max-unread-bytes) held that many bytes unread.",
        MetricType::Counter, static_cast<double>(unread.refused));
    const MemoryGate::Counts memory = worlds_.memory().counts();
    one("linkage_memory_limit_bytes", "The memory the worlds may grow the server to (--max-memory; 0: no limit).",
        MetricType::Gauge, static_cast<double>(worlds_.memory().max()));
    one("linkage_memory_claimed_bytes",
        "Memory changes let in are expected to take once their worlds step with them (memory_gate.hpp).",
        MetricType::Gauge, static_cast<double>(memory.claimed));
    one("linkage_memory_refused_total", "Changes refused because they would grow the server past --max-memory.",
        MetricType::Counter, static_cast<double>(memory.refused));
    return families;
  }

 private:
  const Registry& worlds_;
};

// The families every series belongs to. Shared by the Metrics and by every
// world's meters, which may outlive it: a world's thread can end its last
// step after the server's metrics are gone.
struct Families {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();

  prometheus::Family<prometheus::Histogram>& step = prometheus::BuildHistogram()
      .Name("linkage_world_step_seconds")
      .Help("Wall time of each step of the world.")
      .Register(*registry);
  prometheus::Family<prometheus::Histogram>& stage = prometheus::BuildHistogram()
      .Name("linkage_world_stage_seconds")
      .Help("Wall time of each stage of each step (the stages sum to the step).")
      .Register(*registry);
  prometheus::Family<prometheus::Counter>& built = prometheus::BuildCounter()
      .Name("linkage_world_frames_built_total")
      .Help("Snapshot messages built for the world's streams: one per kind of stream a tick, and one per "
            "set of changes a stream had not seen.")
      .Register(*registry);
  prometheus::Family<prometheus::Counter>& sent = prometheus::BuildCounter()
      .Name("linkage_world_frames_sent_total")
      .Help("Frames written to the world's streams, counted per stream.")
      .Register(*registry);
  prometheus::Family<prometheus::Counter>& skipped = prometheus::BuildCounter()
      .Name("linkage_world_frames_skipped_total")
      .Help("Frames a stream was due but missed, still writing the one before (a slow reader).")
      .Register(*registry);
  prometheus::Family<prometheus::Counter>& bytes = prometheus::BuildCounter()
      .Name("linkage_world_bytes_sent_total")
      .Help("Bytes of frames written to the world's streams (serialized messages).")
      .Register(*registry);
  prometheus::Family<prometheus::Counter>& calls = prometheus::BuildCounter()
      .Name("linkage_rpc_requests_total")
      .Help("Calls answered, by method and status code.")
      .Register(*registry);
  prometheus::Family<prometheus::Histogram>& latency = prometheus::BuildHistogram()
      .Name("linkage_rpc_duration_seconds")
      .Help("Time from a call's arrival to its status being sent, by method (a stream's whole life).")
      .Register(*registry);

  // The meters of each world by name. A world deleted and made again under
  // its name while the old one's streams still drain shares them: its
  // series go on; they are removed when the last world of the name is gone.
  std::mutex mutex;
  struct Live {
    const void* owner;  // the meters that will remove the series
    std::weak_ptr<WorldMeters> meters;
  };
  std::map<std::string, Live> worlds;
};

class Meters final : public WorldMeters {
 public:
  // Family::Add is thread-safe, and gives the same metric for the same labels.
  Meters(std::shared_ptr<Families> f, std::string world) : f_(std::move(f)), world_(std::move(world)) {
    step_ = &f_->step.Add({{"world", world_}}, kStepBuckets);
    for (int i = 0; i < kStageCount; ++i)
      stages_[i] = &f_->stage.Add({{"world", world_}, {"stage", std::string(stage_name(static_cast<Stage>(i)))}},
                                  kStepBuckets);
    built_ = &f_->built.Add({{"world", world_}});
    sent_ = &f_->sent.Add({{"world", world_}});
    skipped_ = &f_->skipped.Add({{"world", world_}});
    bytes_ = &f_->bytes.Add({{"world", world_}});
  }
  // The world's series go with it, unless a world made since under its name
  // took them over (Families::worlds).
  ~Meters() override {
    std::lock_guard lock(f_->mutex);
    const auto it = f_->worlds.find(world_);
    if (it == f_->worlds.end() || it->second.owner != this) return;
    f_->worlds.erase(it);
    f_->step.Remove(step_);
    for (prometheus::Histogram* h : stages_) f_->stage.Remove(h);
    f_->built.Remove(built_);
    f_->sent.Remove(sent_);
    f_->skipped.Remove(skipped_);
    f_->bytes.Remove(bytes_);
  }

  void stepped(const StepDiagnostics& d) override {
    step_->Observe(d.step_seconds);
    for (int i = 0; i < kStageCount; ++i) stages_[i]->Observe(d.stage_seconds.seconds[static_cast<std::size_t>(i)]);
  }
  void frame_built() override { built_->Increment(); }
  void frame_skipped() override { skipped_->Increment(); }
  void frame_sent(std::size_t bytes) override {
    sent_->Increment();
    bytes_->Increment(static_cast<double>(bytes));
  }

 private:
  const std::shared_ptr<Families> f_;
  const std::string world_;
  prometheus::Histogram* step_;
  prometheus::Histogram* stages_[kStageCount];
  prometheus::Counter *built_, *sent_, *skipped_, *bytes_;
};

}  // namespace

class ConnectionsCollectable final : public prometheus::Collectable {
 public:
  explicit ConnectionsCollectable(std::function<ConnectionCounts()> read) : read_(std::move(read)) {}

  std::vector<MetricFamily> Collect() const override {
    const ConnectionCounts c = read_();
    MetricFamily open{"linkage_connections_open", "Connections open (handed to gRPC and not yet closed).",
                      MetricType::Gauge, {}};
    open.metric.emplace_back().gauge.value = c.open;
    MetricFamily accepted{"linkage_connections_accepted_total", "Connections accepted.", MetricType::Counter, {}};
    accepted.metric.emplace_back().counter.value = static_cast<double>(c.accepted);
    MetricFamily refused{"linkage_connections_refused_total",
                         "Connections closed as they came: past --max-connections (over_limit), past "
                         "--max-connections-per-peer (over_peer_limit), or with no file descriptor left (out_of_files).",
                         MetricType::Counter, {}};
    for (const auto& [reason, value] : {std::pair{"over_limit", c.over_limit}, std::pair{"over_peer_limit", c.over_peer_limit},
                                        std::pair{"out_of_files", c.out_of_files}}) {
      prometheus::ClientMetric& m = refused.metric.emplace_back();
      m.label.push_back({"reason", reason});
      m.counter.value = static_cast<double>(value);
    }
    MetricFamily closed{"linkage_connections_closed_total",
                        "Connections the server closed because their client abandoned calls (reset, past their "
                        "deadline, or with no request) faster than it may: HTTP/2 rapid reset.",
                        MetricType::Counter, {}};
    closed.metric.emplace_back().counter.value = static_cast<double>(c.closed);
    return {open, accepted, refused, closed};
  }

 private:
  const std::function<ConnectionCounts()> read_;
};

struct Metrics::Impl {
  explicit Impl(const std::string& listen) : exposer(listen, 2) {}

  std::shared_ptr<Families> families = std::make_shared<Families>();
  std::shared_ptr<WorldsCollectable> worlds;
  std::shared_ptr<ConnectionsCollectable> connections;
  // Last: destroyed first, so no scrape runs while the rest goes.
  prometheus::Exposer exposer;
};

namespace {

// The method as a label: linkage.v1's and health's by name; anything else
// (a name a client made up) as "other", so labels stay few.
std::string method_label(const char* method) {
  std::string full = method ? method : "";
  std::string dotted = full.substr(full.empty() || full[0] != '/' ? 0 : 1);
  if (const auto slash = dotted.rfind('/'); slash != std::string::npos) dotted[slash] = '.';
  return google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(dotted) ? full : "other";
}

const char* code_name(grpc::StatusCode code) {
  static const char* const names[] = {"OK",
                                      "CANCELLED",
                                      "UNKNOWN",
                                      "INVALID_ARGUMENT",
                                      "DEADLINE_EXCEEDED",
                                      "NOT_FOUND",
                                      "ALREADY_EXISTS",
                                      "PERMISSION_DENIED",
                                      "RESOURCE_EXHAUSTED",
                                      "FAILED_PRECONDITION",
                                      "ABORTED",
                                      "OUT_OF_RANGE",
                                      "UNIMPLEMENTED",
                                      "INTERNAL",
                                      "UNAVAILABLE",
                                      "DATA_LOSS",
                                      "UNAUTHENTICATED"};
  const int i = static_cast<int>(code);
  return i >= 0 && i <= 16 ? names[i] : "UNKNOWN";
}

class RpcInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcInterceptor(Families& f, const char* method) : f_(f), method_(method_label(method)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
      const char* code = code_name(methods->GetSendStatus().error_code());
      f_.calls.Add({{"method", method_}, {"code", code}}).Increment();
      f_.latency.Add({{"method", method_}}, kRpcBuckets).Observe(seconds);
    }
    methods->Proceed();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Families& f_;
  const std::string method_;
  const Clock::time_point start_ = Clock::now();
};

class RpcFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcFactory(std::shared_ptr<Families> f) : f_(std::move(f)) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new RpcInterceptor(*f_, info->method());
  }

 private:
  const std::shared_ptr<Families> f_;
};

}  // namespace

Metrics::Metrics(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Metrics::~Metrics() {
  if (world_meter_factory() == this) set_world_meter_factory(nullptr);
}

Result<std::unique_ptr<Metrics>> Metrics::serve(const std::string& listen, const Registry& worlds) {
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(listen);
  } catch (const std::exception& e) {
    return Error{ErrorCode::invalid_argument, "--metrics-listen: cannot serve on " + listen + ": " + e.what()};
  }
  impl->worlds = std::make_shared<WorldsCollectable>(worlds);
  impl->exposer.RegisterCollectable(impl->families->registry);
  impl->exposer.RegisterCollectable(impl->worlds);
  return std::unique_ptr<Metrics>(new Metrics(std::move(impl)));
}

int Metrics::port() const {
  const std::vector<int> ports = impl_->exposer.GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

std::shared_ptr<WorldMeters> Metrics::meters(const std::string& world) {
  Families& f = *impl_->families;
  // Under the lock: an old world's meters of this name, gone but not yet
  // destroyed, wait for it in ~Meters, and then leave the series (found
  // again by Add) to these.
  std::lock_guard lock(f.mutex);
  Families::Live& live = f.worlds[world];
  if (std::shared_ptr<WorldMeters> shared = live.meters.lock()) return shared;
  auto made = std::make_shared<Meters>(impl_->families, world);
  live = {made.get(), made};
  return made;
}

void Metrics::count_connections(std::function<ConnectionCounts()> read) {
  impl_->connections = std::make_shared<ConnectionsCollectable>(std::move(read));
  impl_->exposer.RegisterCollectable(impl_->connections);
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> Metrics::rpc_interceptor() {
  return std::make_unique<RpcFactory>(impl_->families);
}

}  // namespace linkage::server::metrics
