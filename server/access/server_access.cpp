#include "server_access.hpp"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

namespace linkage::server::access {
namespace {

Error flag_error(const std::string& flag, const std::string& why) {
  return Error{ErrorCode::invalid_argument, flag + ": " + why};
}

// The first certificate of a PEM file, or null.
std::unique_ptr<X509, decltype(&X509_free)> read_certificate(const std::string& path) {
  std::unique_ptr<X509, decltype(&X509_free)> none(nullptr, X509_free);
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return none;
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  return {cert, X509_free};
}

// The files exist, parse, and the key is the certificate's: gRPC would
// otherwise only log it, at every handshake, while every client fails.
Status check_tls_files(const AccessOptions& o) {
  auto cert = read_certificate(o.tls_cert);
  if (!cert) return flag_error("--tls-cert", o.tls_cert + ": cannot read a PEM certificate from it");
  FILE* f = std::fopen(o.tls_key.c_str(), "r");
  if (!f) return flag_error("--tls-key", o.tls_key + ": cannot read it");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_PrivateKey(f, nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  std::fclose(f);
  if (!key) return flag_error("--tls-key", o.tls_key + ": not a PEM private key (or one with a passphrase)");
  if (X509_check_private_key(cert.get(), key.get()) != 1)
    return flag_error("--tls-key", o.tls_key + " is not the key of the certificate in " + o.tls_cert);
  if (!o.tls_client_ca.empty() && !read_certificate(o.tls_client_ca))
    return flag_error("--tls-client-ca", o.tls_client_ca + ": cannot read a PEM certificate from it");
  return ok_status();
}

}  // namespace

bool is_loopback(const std::string& listen) {
  if (listen.starts_with("unix:") || listen.starts_with("unix-abstract:")) return true;
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.starts_with("[") && host.ends_with("]")) host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

Result<ServerAccess> prepare_access(const AccessOptions& o, const std::string& listen) {
  const bool tls = !o.tls_cert.empty() || !o.tls_key.empty();
  if (tls && (o.tls_cert.empty() || o.tls_key.empty()))
    return flag_error(o.tls_cert.empty() ? "--tls-cert" : "--tls-key",
                      "TLS needs both --tls-cert and --tls-key (a PEM certificate chain and its private key)");
  if (!o.tls_client_ca.empty() && !tls)
    return flag_error("--tls-client-ca", "client certificates are asked for over TLS only: add --tls-cert and --tls-key");
  if (o.tls_client_auth != "require" && o.tls_client_auth != "optional")
    return flag_error("--tls-client-auth", "'" + o.tls_client_auth + "' is not require or optional");
  if (!is_loopback(listen) && !(tls && !o.tokens.empty()) && !o.insecure)
    return flag_error("--listen", listen +
                                      " can be reached from other machines, and linkaged serves those only with "
                                      "TLS and tokens: add " +
                                      std::string(tls ? "" : "--tls-cert and --tls-key") +
                                      (!tls && o.tokens.empty() ? " and " : "") +
                                      (o.tokens.empty() ? "--tokens FILE" : "") +
                                      ", or --insecure to let anyone who reaches the port do anything, in the clear");

  ServerAccess access;
  std::string summary;
  if (!o.tokens.empty()) {
    Result<std::shared_ptr<TokenStore>> store = TokenStore::open(o.tokens);
    if (!store) return flag_error("--tokens", store.error().message);
    access.tokens = store.value();
    const std::size_t n = access.tokens->table()->size();
    summary = std::to_string(n) + " token" + (n == 1 ? "" : "s") + " from " + o.tokens;
  } else {
    summary = "no tokens asked";
  }
  if (!tls) {
    access.credentials = grpc::InsecureServerCredentials();
    access.summary = "plain text (no TLS), " + summary;
    if (!is_loopback(listen)) spdlog::warn("--insecure: serving {} without {}", listen, o.tokens.empty() ? "TLS or tokens" : "TLS: tokens travel in the clear");
    return access;
  }
  if (Status ok = check_tls_files(o); !ok) return ok.error();
  const auto seconds = static_cast<unsigned>(o.tls_reload_seconds);
  auto provider =
      o.tls_client_ca.empty()
          ? std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(o.tls_key, o.tls_cert, seconds)
          : std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(o.tls_key, o.tls_cert,
                                                                                 o.tls_client_ca, seconds);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (o.tls_client_ca.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(o.tls_client_auth == "require"
                                      ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                      : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  access.credentials = grpc::experimental::TlsServerCredentials(options);
  access.summary = "TLS (" + o.tls_cert + ", checked every " + std::to_string(seconds) + " s)" +
                   (o.tls_client_ca.empty() ? "" : o.tls_client_auth == "require" ? ", client certificates required" : ", client certificates optional") + ", " +
                   summary;
  return access;
}

}  // namespace linkage::server::access
