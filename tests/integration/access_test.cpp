// Access over real gRPC: tokens and roles on every RPC, per-world tokens,
// the token file read again when it changes, open health checks, TLS with
// certificates made here, mutual TLS, certificate rotation without a
// restart, and the refusal to serve a network address in the clear.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include "access/roles.hpp"
#include "access/server_access.hpp"
#include "access/tokens.hpp"
#include "certs.hpp"
#include "child.hpp"
#include "grpc/health/v1/health.grpc.pb.h"
#include "linkage/client/client.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

namespace access = server::access;
namespace lc = linkage::client;
using google::protobuf::Message;
using google::protobuf::MethodDescriptor;
using google::protobuf::ServiceDescriptor;

// Every method of linkage.v1's services, from the generated descriptors.
std::vector<const MethodDescriptor*> all_methods() {
  std::vector<const MethodDescriptor*> methods;
  const auto* file = google::protobuf::DescriptorPool::generated_pool()
                         ->FindServiceByName(v1::WorldService::service_full_name())
                         ->file();
  for (int s = 0; s < file->service_count(); ++s)
    for (int m = 0; m < file->service(s)->method_count(); ++m) methods.push_back(file->service(s)->method(m));
  return methods;
}

std::string grpc_name(const MethodDescriptor& m) { return "/" + m.service()->full_name() + "/" + m.name(); }

// A token file in a temporary directory; tokens are kept to call with.
class TokenFile {
 public:
  TokenFile() : path_(std::filesystem::temp_directory_path() / ("linkage-tokens-" + std::to_string(getpid()))) {}
  ~TokenFile() { std::filesystem::remove(path_); }
  // Adds a line for a new token and answers the token.
  std::string add(const std::string& name, access::Role role, std::vector<std::string> worlds = {}) {
    const std::string token = access::new_token();
    lines_ += access::token_line({name, role, std::move(worlds), access::sha256_hex(token)}) + "\n";
    return token;
  }
  void clear() { lines_.clear(); }
  // Writes the file whole (a new file renamed over the old, as editors and Kubernetes do).
  void write() const {
    const std::string temp = path_.string() + ".new";
    std::ofstream(temp) << "# name role worlds hash\n" << lines_;
    std::filesystem::rename(temp, path_);
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
  std::string lines_;
};

// A Registry with a "default" world, the services behind access::prepare_access,
// and a grpc::Server on 127.0.0.1 at a port the system chose.
class SecureServer {
 public:
  explicit SecureServer(const access::AccessOptions& options) {
    registry_ = std::make_unique<server::Registry>(server::ServerLimits{});
    WorldSettings defaults;
    EXPECT_TRUE(registry_->create("default", World::create(defaults).value(), server::Names{}, {}, false).ok());
    Result<access::ServerAccess> a = access::prepare_access(options, "127.0.0.1:0");
    EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
    if (!a) return;
    access_ = a.value();
    services_ = std::make_unique<server::Services>(*registry_, defaults, server::ServiceOptions{access_.tokens});
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", access_.credentials, &port_);
    services_->register_with(builder);
    server_ = builder.BuildAndStart();
    EXPECT_NE(port_, 0);
  }
  ~SecureServer() {
    registry_->stop_all("the test server is stopping");
    if (server_) {
      server_->Shutdown(std::chrono::system_clock::now() + 2s);
      server_->Wait();
    }
  }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }
  server::Registry& registry() { return *registry_; }

 private:
  std::unique_ptr<server::Registry> registry_;
  access::ServerAccess access_;
  std::unique_ptr<server::Services> services_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// One call of any method, unary or streaming, with a request message and an
// authorization value (or none). A stream that sends a message counts as
// answered OK (and is cancelled then).
class AnyCall final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  AnyCall(grpc::GenericStub& stub, const std::string& method, const Message& request,
          const std::optional<std::string>& authorization) {
    if (authorization) ctx_.AddMetadata("authorization", *authorization);
    ctx_.set_deadline(std::chrono::system_clock::now() + 5s);
    const std::string bytes = request.SerializeAsString();
    grpc::Slice slice(bytes);
    request_ = grpc::ByteBuffer(&slice, 1);
    stub.PrepareBidiStreamingCall(&ctx_, method, grpc::StubOptions(), this);
    StartWriteLast(&request_, grpc::WriteOptions());
    StartRead(&reply_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (ok) {
      std::lock_guard lock(mutex_);
      answered_ = true;
      ctx_.TryCancel();
    }
  }
  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mutex_);
    status_ = status;
    done_ = true;
    cv_.notify_all();
  }
  grpc::StatusCode await() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
    return answered_ ? grpc::StatusCode::OK : status_.error_code();
  }
  std::string message() const { return status_.error_message(); }

 private:
  grpc::ClientContext ctx_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  bool answered_ = false;
  grpc::Status status_;
};

// A request of the method's type naming `world` in its rule's field.
std::unique_ptr<Message> request_for(const MethodDescriptor& m, const std::string& world) {
  std::unique_ptr<Message> request(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(m.input_type())->New());
  const auto rule = access::method_rule(grpc_name(m));
  if (rule && !rule->world_field.empty())
    request->GetReflection()->SetString(request.get(), m.input_type()->FindFieldByName(std::string(rule->world_field)),
                                        world);
  // A copy's name (ForkWorld) that no test world has.
  if (rule && !rule->new_world_field.empty())
    request->GetReflection()->SetString(
        request.get(), m.input_type()->FindFieldByName(std::string(rule->new_world_field)), world + "-copy");
  return request;
}

TEST(AccessTable, EveryRpcHasARole) {
  for (const MethodDescriptor* m : all_methods()) {
    const auto rule = access::method_rule(grpc_name(*m));
    ASSERT_TRUE(rule.has_value()) << grpc_name(*m) << " has no role: add it to server/access/roles.cpp";
    for (const std::string_view name : {rule->world_field, rule->new_world_field}) {
      if (name.empty()) continue;
      const auto* field = m->input_type()->FindFieldByName(std::string(name));
      ASSERT_NE(field, nullptr) << grpc_name(*m) << ": its request has no field " << name;
      EXPECT_EQ(field->type(), google::protobuf::FieldDescriptor::TYPE_STRING) << grpc_name(*m);
    }
  }
}

// Every RPC × (no token, a bad token, a viewer's, an editor's, an admin's).
TEST(Access, EveryRpcEveryRole) {
  TokenFile file;
  const std::string viewer = file.add("v", access::Role::viewer);
  const std::string editor = file.add("e", access::Role::editor);
  const std::string admin = file.add("a", access::Role::admin);
  file.write();
  SecureServer server({.tokens = file.path()});
  grpc::GenericStub stub(grpc::CreateChannel(server.target(), grpc::InsecureChannelCredentials()));

  struct Caller {
    std::string label;
    std::optional<std::string> authorization;
    std::optional<access::Role> role;  // nullopt: refused as UNAUTHENTICATED
  };
  const std::vector<Caller> callers{
      {"no token", std::nullopt, std::nullopt},
      {"not bearer", "Basic " + admin, std::nullopt},
      {"bad token", "Bearer lk_0000", std::nullopt},
      {"viewer", "Bearer " + viewer, access::Role::viewer},
      {"editor", "Bearer " + editor, access::Role::editor},
      {"admin", "bearer " + admin, access::Role::admin},
  };
  int checked = 0;
  for (const Caller& caller : callers) {
    for (const MethodDescriptor* m : all_methods()) {
      const auto request =
          request_for(*m, m->name() == "CreateWorld" ? "made-by-" + caller.label.substr(0, 1) : "default");
      auto call = std::make_unique<AnyCall>(stub, grpc_name(*m), *request, caller.authorization);
      const grpc::StatusCode code = call->await();
      const access::Role needs = access::method_rule(grpc_name(*m))->role;
      const std::string what = caller.label + " → " + grpc_name(*m) + ": " + call->message();
      if (!caller.role)
        EXPECT_EQ(code, grpc::StatusCode::UNAUTHENTICATED) << what;
      else if (*caller.role < needs)
        EXPECT_EQ(code, grpc::StatusCode::PERMISSION_DENIED) << what;
      else
        EXPECT_TRUE(code != grpc::StatusCode::UNAUTHENTICATED && code != grpc::StatusCode::PERMISSION_DENIED)
            << what;
      ++checked;
    }
    // Nobody but the admin made a world (the admin's DeleteWorld took 'default').
    if (!caller.role || *caller.role < access::Role::admin) {
      EXPECT_NE(server.registry().find("default"), nullptr) << caller.label;
      EXPECT_EQ(server.registry().find("made-by-" + caller.label.substr(0, 1)), nullptr) << caller.label;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(callers.size() * all_methods().size()));
  EXPECT_NE(server.registry().find("made-by-a"), nullptr);
}

// Whether a client with `options` connects and may list the worlds.
bool lists(const std::string& target, const lc::ConnectOptions& options) {
  auto c = lc::Client::connect(target, options);
  return c.ok() && c.value().list_worlds().ok();
}

lc::ConnectOptions with_token(const std::string& token) {
  lc::ConnectOptions o;
  o.token = token;
  o.connect_timeout = 3s;
  o.call_timeout = 3s;
  return o;
}

TEST(Access, ViewerStreamsButCannotChange) {
  TokenFile file;
  const std::string viewer = file.add("kiosk", access::Role::viewer);
  const std::string editor = file.add("lab-hand", access::Role::editor);
  file.write();
  SecureServer server({.tokens = file.path()});
  auto v = lc::Client::connect(server.target(), with_token(viewer));
  ASSERT_TRUE(v.ok()) << v.error().message;
  auto e = lc::Client::connect(server.target(), with_token(editor));
  ASSERT_TRUE(e.ok());

  // The viewer's stream sees what the editor does.
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", "Bearer " + viewer);
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::StreamStateRequest stream_request;
  stream_request.set_world("default");
  auto reader = v.value().world_stub().StreamState(&ctx, stream_request);
  ASSERT_TRUE(e.value().create_body("default", lc::BodyDef{.position = {1, 0}, .mass = 1}).ok());
  v1::Snapshot snapshot;
  bool saw_body = false;
  while (!saw_body && reader->Read(&snapshot)) saw_body = snapshot.body_index_size() == 1;
  EXPECT_TRUE(saw_body);
  ctx.TryCancel();

  auto created = v.value().create_body("default", lc::BodyDef{.position = {2, 0}, .mass = 1});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(created.error().message.find("needs editor"), std::string::npos) << created.error().message;
  EXPECT_EQ(v.value().pause("default").error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(e.value().delete_world("default").error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(e.value().get_world("default").value().body_count(), 1u);
}

TEST(Access, HealthNeedsNoToken) {
  TokenFile file;
  file.add("x", access::Role::admin);
  file.write();
  SecureServer server({.tokens = file.path()});
  auto stub = grpc::health::v1::Health::NewStub(grpc::CreateChannel(server.target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(stub->Check(&ctx, {}, &response).ok());
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  // The C++ client (and linkctl health) connects without a token and asks.
  auto client = lc::Client::connect(server.target(), with_token(""));
  ASSERT_TRUE(client.ok()) << client.error().message;
  EXPECT_TRUE(client.value().serving().value());
  EXPECT_EQ(client.value().list_worlds().error().code, grpc::StatusCode::UNAUTHENTICATED);
}

TEST(Access, PerWorldTokens) {
  TokenFile file;
  const std::string lab_admin = file.add("lab-admin", access::Role::admin, {"lab"});
  file.write();
  SecureServer server({.tokens = file.path()});
  auto c = lc::Client::connect(server.target(), with_token(lab_admin));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c.value().create_world("lab").ok());
  EXPECT_TRUE(c.value().get_world("lab").ok());
  const auto other = c.value().get_world("default");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(other.error().message.find("'lab' only"), std::string::npos) << other.error().message;
  EXPECT_EQ(c.value().create_world("elsewhere").error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(c.value().delete_world("default").error().code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(c.value().delete_world("lab").ok());
}

TEST(Access, TokenFileReadAgainWhenItChanges) {
  TokenFile file;
  const std::string old_token = file.add("old", access::Role::viewer);
  file.write();
  SecureServer server({.tokens = file.path()});
  auto before = lc::Client::connect(server.target(), with_token(old_token));
  ASSERT_TRUE(before.ok());

  file.clear();
  const std::string new_token = file.add("new", access::Role::viewer);
  file.write();
  // The store checks the file once a second.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (before.value().list_worlds().ok() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(100ms);
  EXPECT_EQ(before.value().list_worlds().error().code, grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(lists(server.target(), with_token(new_token)));

  // A file that does not parse leaves the tokens in force.
  { std::ofstream(file.path() + ".new") << "broken line\n"; }
  std::filesystem::rename(file.path() + ".new", file.path());
  std::this_thread::sleep_for(2500ms);
  EXPECT_TRUE(lists(server.target(), with_token(new_token)));
}

// --- TLS ---

lc::ConnectOptions tls_client(const TestCerts& certs, const std::string& ca, const std::string& cert = "") {
  lc::ConnectOptions o;
  o.connect_timeout = 2s;
  o.call_timeout = 2s;
  o.tls = true;
  if (!ca.empty()) o.tls_ca = certs.read(ca + ".pem");
  if (!cert.empty()) {
    o.tls_cert = certs.read(cert + ".pem");
    o.tls_key = certs.read(cert + ".key");
  }
  return o;
}

TEST(AccessTls, ServesTlsToClientsThatTrustItsCa) {
  TestCerts certs;
  certs.make_ca("ca");
  certs.make_cert("server", "ca");
  SecureServer server({.tls_cert = certs.path("server.pem"), .tls_key = certs.path("server.key")});
  EXPECT_TRUE(lists(server.target(), tls_client(certs, "ca")));
  // The system's CAs did not sign it; a plain-text client does not speak TLS.
  EXPECT_EQ(lc::Client::connect(server.target(), tls_client(certs, "")).error().code, grpc::StatusCode::UNAVAILABLE);
  lc::ConnectOptions plain;
  plain.connect_timeout = 1s;
  EXPECT_EQ(lc::Client::connect(server.target(), plain).error().code, grpc::StatusCode::UNAVAILABLE);
}

TEST(AccessTls, MutualTls) {
  TestCerts certs;
  certs.make_ca("ca");
  certs.make_ca("client-ca");
  certs.make_cert("server", "ca");
  certs.make_cert("client", "client-ca");
  certs.make_cert("stranger", "ca");  // signed, but not by the CA clients' certificates need
  {
    SecureServer server({.tls_cert = certs.path("server.pem"),
                         .tls_key = certs.path("server.key"),
                         .tls_client_ca = certs.path("client-ca.pem")});
    EXPECT_TRUE(lists(server.target(), tls_client(certs, "ca", "client")));
    EXPECT_FALSE(lists(server.target(), tls_client(certs, "ca")));
    EXPECT_FALSE(lists(server.target(), tls_client(certs, "ca", "stranger")));
  }
  SecureServer optional({.tls_cert = certs.path("server.pem"),
                         .tls_key = certs.path("server.key"),
                         .tls_client_ca = certs.path("client-ca.pem"),
                         .tls_client_auth = "optional"});
  EXPECT_TRUE(lists(optional.target(), tls_client(certs, "ca")));
  EXPECT_TRUE(lists(optional.target(), tls_client(certs, "ca", "client")));
}

TEST(AccessTls, RenewedCertificateServedWithoutRestart) {
  TestCerts certs;
  certs.make_ca("old-ca");
  certs.make_ca("new-ca");
  certs.make_cert("old", "old-ca");
  certs.make_cert("new", "new-ca");
  std::filesystem::copy_file(certs.path("old.pem"), certs.path("server.pem"));
  std::filesystem::copy_file(certs.path("old.key"), certs.path("server.key"));
  SecureServer server(
      {.tls_cert = certs.path("server.pem"), .tls_key = certs.path("server.key"), .tls_reload_seconds = 1});
  ASSERT_TRUE(lists(server.target(), tls_client(certs, "old-ca")));
  EXPECT_FALSE(lists(server.target(), tls_client(certs, "new-ca")));

  // The new pair is written beside and renamed in, so that no check reads half of it.
  std::filesystem::copy_file(certs.path("new.pem"), certs.path("server.pem.new"));
  std::filesystem::copy_file(certs.path("new.key"), certs.path("server.key.new"));
  std::filesystem::rename(certs.path("server.key.new"), certs.path("server.key"));
  std::filesystem::rename(certs.path("server.pem.new"), certs.path("server.pem"));
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  bool renewed = false;
  while (!renewed && std::chrono::steady_clock::now() < deadline) {
    renewed = lists(server.target(), tls_client(certs, "new-ca"));
    if (!renewed) std::this_thread::sleep_for(200ms);
  }
  EXPECT_TRUE(renewed);
  EXPECT_FALSE(lists(server.target(), tls_client(certs, "old-ca")));
}

TEST(AccessTls, BadFilesRefusedAtStart) {
  TestCerts certs;
  certs.make_ca("ca");
  certs.make_cert("server", "ca");
  certs.make_cert("other", "ca");
  auto mismatched = access::prepare_access(
      {.tls_cert = certs.path("server.pem"), .tls_key = certs.path("other.key")}, "127.0.0.1:0");
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.error().message.find("is not the key of the certificate"), std::string::npos);
  auto half = access::prepare_access({.tls_cert = certs.path("server.pem")}, "127.0.0.1:0");
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("--tls-key"), std::string::npos);
}

// --- secure by default ---

TEST(AccessDefaults, NetworkAddressNeedsTlsAndTokensOrInsecure) {
  EXPECT_TRUE(access::is_loopback("127.0.0.1:50051"));
  EXPECT_TRUE(access::is_loopback("localhost:1"));
  EXPECT_TRUE(access::is_loopback("[::1]:50051"));
  EXPECT_FALSE(access::is_loopback("0.0.0.0:50051"));
  EXPECT_FALSE(access::is_loopback("[::]:50051"));
  EXPECT_FALSE(access::is_loopback("10.0.0.7:50051"));

  auto refused = access::prepare_access({}, "0.0.0.0:50051");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--tls-cert and --tls-key and --tokens FILE, or --insecure"),
            std::string::npos)
      << refused.error().message;
  EXPECT_TRUE(access::prepare_access({.insecure = true}, "0.0.0.0:50051").ok());
  EXPECT_TRUE(access::prepare_access({}, "127.0.0.1:50051").ok());

  // The real binary exits 2 with that message.
  Child linkaged({LINKAGED, "--listen", "0.0.0.0:" + std::to_string(free_port())});
  const std::optional<int> status = linkaged.wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 2);
}

}  // namespace
}  // namespace linkage::itest
