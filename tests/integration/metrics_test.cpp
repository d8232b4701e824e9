// linkaged's Prometheus metrics (--metrics-listen), on the real binary: after
// a scripted session (worlds, bodies and constraints, ticks of a paused
// world stepped by hand, a stream read frame by frame, calls refused with
// known codes, a deleted world with a stream on it, made again), /metrics parses
// strictly (prom_text.hpp) and its counters equal what the session did, by
// deltas from a page read before it. ~2 s.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "child.hpp"
#include "prom_text.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

struct MetricsServer {
  MetricsServer()
      : port(free_port()),
        metrics_port(free_port()),
        target("127.0.0.1:" + std::to_string(port)),
        child({LINKAGED, "--listen", target, "--log-level", "warn", "--metrics-listen",
               "127.0.0.1:" + std::to_string(metrics_port)}) {
    EXPECT_TRUE(wait_until_serving(child, target, 10s)) << "linkaged did not start";
  }
  Exposition scrape() const {
    std::string error;
    const std::string page = http_get_metrics(metrics_port, &error);
    EXPECT_EQ(error, "");
    Exposition e = parse_prometheus_text(page);
    EXPECT_EQ(e.error, "");
    return e;
  }
  int port, metrics_port;
  std::string target;
  Child child;
};

// The calls the session made, by method label and status code name.
struct Calls {
  std::map<std::pair<std::string, std::string>, int> counts;
  void note(const std::string& method, const grpc::Status& s) {
    static const char* const names[] = {"OK",        "CANCELLED",          "UNKNOWN",          "INVALID_ARGUMENT",
                                        "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",   "PERMISSION_DENIED",
                                        "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                                        "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",      "DATA_LOSS",
                                        "UNAUTHENTICATED"};
    ++counts[{"/linkage.v1." + method, names[s.error_code()]}];
  }
};

double value_or_zero(const Exposition& e, const std::string& name, const Labels& labels) {
  return e.value(name, labels).value_or(0.0);
}

TEST(Metrics, CountersEqualWhatTheSessionDid) {
  MetricsServer server;
  Client c(server.target);
  Calls calls;
  const Exposition before = server.scrape();
  ASSERT_EQ(before.error, "");

  v1::CreateWorldRequest create;
  create.set_name("m-a");
  create.set_paused(true);
  v1::CreateWorldResponse created;
  calls.note("WorldService/CreateWorld", c.worlds->CreateWorld(context().get(), create, &created));
  v1::ApplyBatchResponse applied;
  calls.note("WorldService/ApplyBatch", c.worlds->ApplyBatch(context().get(), chain_batch("m-a", 5), &applied));
  // Refused with known codes: a name in use, a world that is not, a bad body.
  grpc::Status s = c.worlds->CreateWorld(context().get(), create, &created);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  calls.note("WorldService/CreateWorld", s);
  v1::GetWorldRequest get;
  get.set_world("no-such-world");
  v1::GetWorldResponse got;
  s = c.worlds->GetWorld(context().get(), get, &got);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  calls.note("WorldService/GetWorld", s);
  v1::CreateBodyRequest bad;
  bad.set_world("m-a");
  *bad.mutable_body() = particle("heavy", 0, 0, -1.0);
  v1::CreateBodyResponse body;
  s = c.bodies->CreateBody(context().get(), bad, &body);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  calls.note("BodyService/CreateBody", s);

  // Ticks of the paused world, then a stream read frame by frame: each Step
  // of one tick waits until the frame before is written, so none is skipped.
  v1::StepRequest step;
  step.set_world("m-a");
  step.set_ticks(20);
  v1::StepResponse stepped;
  calls.note("WorldService/Step", c.worlds->Step(context().get(), step, &stepped));
  auto sent = [&](const std::string& world) {
    return value_or_zero(server.scrape(), "linkage_world_frames_sent_total", {{"world", world}});
  };
  auto wait_sent = [&](const std::string& world, double n) {
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (sent(world) != n && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
    ASSERT_EQ(sent(world), n);
  };
  constexpr int K = 5;
  grpc::ClientContext stream_context;
  v1::StreamStateRequest watch;
  watch.set_world("m-a");
  auto stream = c.worlds->StreamState(&stream_context, watch);
  std::vector<v1::Snapshot> frames(1);
  ASSERT_TRUE(stream->Read(&frames.back()));
  step.set_ticks(1);
  for (int i = 1; i <= K; ++i) {
    wait_sent("m-a", i);
    calls.note("WorldService/Step", c.worlds->Step(context().get(), step, &stepped));
    frames.emplace_back();
    ASSERT_TRUE(stream->Read(&frames.back()));
  }
  wait_sent("m-a", K + 1);

  // A second world with a stream, deleted: the stream ends UNAVAILABLE and
  // the world's series leave the page.
  create.set_name("m-b");
  calls.note("WorldService/CreateWorld", c.worlds->CreateWorld(context().get(), create, &created));
  {
    grpc::ClientContext ctx;
    watch.set_world("m-b");
    auto doomed = c.worlds->StreamState(&ctx, watch);
    v1::Snapshot frame;
    ASSERT_TRUE(doomed->Read(&frame));
    v1::DeleteWorldRequest del;
    del.set_world("m-b");
    v1::DeleteWorldResponse deleted;
    calls.note("WorldService/DeleteWorld", c.worlds->DeleteWorld(context().get(), del, &deleted));
    while (doomed->Read(&frame)) {
    }
    s = doomed->Finish();
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
    calls.note("WorldService/StreamState", s);
  }
  // Its thread ends after its last step; the registry lets go of it at the
  // next CreateWorld (here refused: the name is in use).
  create.set_name("m-a");
  Exposition after;
  for (int i = 0; i < 100; ++i) {
    calls.note("WorldService/CreateWorld", c.worlds->CreateWorld(context().get(), create, &created));
    after = server.scrape();
    if (!after.has_series("linkage_world_frames_sent_total", "world", "m-b")) break;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(after.error, "");
  for (const auto& [name, family] : after.families)
    EXPECT_FALSE(after.has_series(name, "world", "m-b")) << name << " still has the deleted world";
  // Made again under its name, the world starts its series afresh.
  create.set_name("m-b");
  calls.note("WorldService/CreateWorld", c.worlds->CreateWorld(context().get(), create, &created));
  after = server.scrape();
  EXPECT_EQ(after.value("linkage_world_frames_sent_total", {{"world", "m-b"}}), 0);
  EXPECT_EQ(after.value("linkage_world_ticks_total", {{"world", "m-b"}}), 0);

  // Calls, by method and code, and their latency histograms' counts.
  std::map<std::string, int> by_method;
  for (const auto& [key, n] : calls.counts) {
    const Labels labels{{"method", key.first}, {"code", key.second}};
    EXPECT_EQ(value_or_zero(after, "linkage_rpc_requests_total", labels) -
                  value_or_zero(before, "linkage_rpc_requests_total", labels),
              n)
        << key.first << " " << key.second;
    by_method[key.first] += n;
  }
  for (const auto& [method, n] : by_method)
    EXPECT_EQ(value_or_zero(after, "linkage_rpc_duration_seconds_count", {{"method", method}}) -
                  value_or_zero(before, "linkage_rpc_duration_seconds_count", {{"method", method}}),
              n)
        << method;

  // The world: ticks, steps and each stage's, what it holds, its stream.
  const Labels a{{"world", "m-a"}};
  const double ticks = 20 + K;
  EXPECT_EQ(after.value("linkage_world_ticks_total", a), ticks);
  EXPECT_EQ(after.value("linkage_world_step_seconds_count", a), ticks);
  int stages = 0;
  for (const PromSample& sample : after.families.at("linkage_world_stage_seconds").samples) {
    if (sample.name != "linkage_world_stage_seconds_count" || sample.labels.at("world") != "m-a") continue;
    ++stages;
    EXPECT_EQ(sample.value, ticks) << sample.labels.at("stage");
  }
  EXPECT_EQ(stages, kStageCount);
  EXPECT_EQ(after.value("linkage_world_bodies", a), c.list_bodies("m-a").bodies_size());
  EXPECT_EQ(after.value("linkage_world_constraints", a), c.list_constraints("m-a").constraints_size());
  EXPECT_EQ(after.value("linkage_world_bodies", a), 5);
  EXPECT_EQ(after.value("linkage_world_subscribers", a), 1);
  EXPECT_EQ(after.value("linkage_world_paused", a), 1);
  EXPECT_EQ(after.value("linkage_worlds"), 3);  // default, m-a and the new m-b
  // The session's connection (and the start-up probe's, if still open);
  // nothing refused.
  EXPECT_GE(after.value("linkage_connections_open"), 1);
  EXPECT_GE(after.value("linkage_connections_accepted_total"), after.value("linkage_connections_open"));
  for (const char* reason : {"over_limit", "over_peer_limit", "out_of_files"})
    EXPECT_EQ(after.value("linkage_connections_refused_total", {{"reason", reason}}), 0) << reason;
  EXPECT_EQ(after.value("linkage_connections_closed_total"), 0);
  // The open stream counts 8 KiB against its address until it ends; nothing refused.
  EXPECT_GE(after.value("linkage_unread_bytes"), 8192);
  EXPECT_EQ(after.value("linkage_unread_peers"), 1);
  EXPECT_EQ(after.value("linkage_unread_refused_total"), 0);
  // The default memory limit (three quarters of the machine's), no change refused by it.
  EXPECT_GT(after.value("linkage_memory_limit_bytes"), 0);
  EXPECT_GE(after.value("linkage_memory_claimed_bytes"), 0);
  EXPECT_EQ(after.value("linkage_memory_refused_total"), 0);

  double bytes = 0;
  int with_changes = 0;
  for (const v1::Snapshot& f : frames) {
    bytes += static_cast<double>(f.ByteSizeLong());
    with_changes += f.has_changes();
  }
  EXPECT_EQ(after.value("linkage_world_frames_sent_total", a), K + 1);
  EXPECT_EQ(after.value("linkage_world_bytes_sent_total", a), bytes);
  EXPECT_EQ(after.value("linkage_world_frames_skipped_total", a), 0);
  // One frame a tick for the one kind of stream, and a copy of it for the
  // first, which carries the world's topology.
  EXPECT_EQ(with_changes, 1);
  EXPECT_EQ(after.value("linkage_world_frames_built_total", a), K + 1 + with_changes);

  EXPECT_EQ(after.families.at("linkage_world_ticks_total").type, "counter");
  EXPECT_EQ(after.families.at("linkage_world_step_seconds").type, "histogram");
  EXPECT_EQ(after.families.at("linkage_rpc_requests_total").type, "counter");
  EXPECT_EQ(after.families.at("linkage_connections_open").type, "gauge");
  EXPECT_EQ(after.families.at("linkage_connections_refused_total").type, "counter");
  EXPECT_EQ(after.families.at("linkage_connections_closed_total").type, "counter");
  EXPECT_EQ(after.families.at("linkage_unread_bytes").type, "gauge");
  EXPECT_EQ(after.families.at("linkage_unread_refused_total").type, "counter");
  EXPECT_EQ(after.families.at("linkage_memory_limit_bytes").type, "gauge");
  EXPECT_EQ(after.families.at("linkage_memory_refused_total").type, "counter");
  EXPECT_FALSE(after.families.at("linkage_world_frames_skipped_total").help.empty());
  stream_context.TryCancel();
}

// A reader that does not read: the world runs on and its frames are skipped.
TEST(Metrics, ASlowReaderSkipsFrames) {
  MetricsServer server;
  Client c(server.target);
  v1::ApplyBatchResponse applied;
  // Frames big enough to fill gRPC's window within a few ticks.
  v1::ApplyBatchRequest chain = chain_batch("default", 400, 0.1, 0.0, -1.0);  // hanging at rest
  ASSERT_TRUE(c.worlds->ApplyBatch(context().get(), chain, &applied).ok());
  // A reader whose window stays gRPC's first 64 KiB (no bandwidth probes to widen it).
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  auto reader = v1::WorldService::NewStub(
      grpc::CreateCustomChannel(server.target, grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext ctx;
  v1::StreamStateRequest watch;
  watch.set_world("default");
  watch.set_constraints(true);
  auto stream = reader->StreamState(&ctx, watch);
  v1::Snapshot frame;
  ASSERT_TRUE(stream->Read(&frame));
  double skipped = 0;
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (skipped == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(50ms);
    skipped = value_or_zero(server.scrape(), "linkage_world_frames_skipped_total", {{"world", "default"}});
  }
  EXPECT_GT(skipped, 0);
  ctx.TryCancel();
}

TEST(PromText, RefusesWhatPrometheusWould) {
  EXPECT_EQ(parse_prometheus_text("# TYPE a counter\na{x=\"1\"} 2\n").error, "");
  EXPECT_EQ(parse_prometheus_text("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 0.5\nh_count 1\n").error, "");
  const char* const bad[] = {
      "a 1\n",                                                  // no TYPE
      "# TYPE a counter\na 1",                                  // no final newline
      "# TYPE a counter\na -1\n",                               // a counter below 0
      "# TYPE a gauge\na{x=\"1} 2\n",                           // an open label value
      "# TYPE a gauge\na{x=\"\\t\"} 2\n",                       // an unknown escape
      "# TYPE a gauge\na{x=\"1\"}  2\n",                        // two spaces
      "# TYPE a gauge\na two\n",                                // not a number
      "# TYPE a gauge\na 1\na 2\n",                             // a series twice
      "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{x=\"1\"} 1\n",  // a family split
      "# TYPE h histogram\nh_bucket 1\n",                       // a bucket without le
      "# TYPE a gauge\na 1\n# HELP a late\n",                   // HELP after the samples
      "# TYPE a flavour\na 1\n",                                // an unknown type
  };
  for (const char* page : bad) EXPECT_NE(parse_prometheus_text(page).error, "") << page;
}

}  // namespace
}  // namespace linkage::itest
