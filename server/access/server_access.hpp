#pragma once
// How linkaged is reached: its credentials (TLS from certificate files that
// are watched and reloaded, optionally asking for client certificates) and
// the tokens every call must bring; and the refusal to serve a network
// address without both unless --insecure says so.

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "linkage/result.hpp"
#include "tokens.hpp"

namespace linkage::server::access {

struct AccessOptions {
  std::string tokens;         // the token file (tokens.hpp); empty: calls need no token
  std::string tls_cert;       // PEM certificate chain; with tls_key: TLS
  std::string tls_key;        // PEM private key
  std::string tls_client_ca;  // PEM: client certificates must be signed by it (mTLS)
  std::string tls_client_auth = "require";  // with tls_client_ca: "require" or "optional"
  int tls_reload_seconds = 10;  // how often the TLS files are checked for changes
  bool insecure = false;        // serve a network address without TLS or tokens
};

struct ServerAccess {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  std::shared_ptr<TokenStore> tokens;  // null: calls need no token
  std::string summary;                 // for the start-up log line: "TLS, mTLS required, 3 tokens"
};

// Whether `listen` (host:port) is reachable from this machine only:
// 127.0.0.0/8, [::1], localhost, or a unix: socket.
bool is_loopback(const std::string& listen);

// Checks the options against each other and against `listen`, reads the
// files, and builds the credentials: an error says which flag to add or fix.
Result<ServerAccess> prepare_access(const AccessOptions& options, const std::string& listen);

}  // namespace linkage::server::access
