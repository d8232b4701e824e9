#pragma once
// Certificates for the TLS tests, made by Debian's `openssl` in a fresh
// temporary directory: CAs, and certificates they sign for 127.0.0.1 and
// localhost (servers) or a client.

#include <string>

namespace linkage::itest {

class TestCerts {
 public:
  TestCerts();   // a new temporary directory; the test fails if openssl does
  ~TestCerts();  // removes it

  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // NAME.pem and NAME.key, a CA.
  void make_ca(const std::string& name);
  // NAME.pem and NAME.key signed by CA (for 127.0.0.1 and localhost).
  void make_cert(const std::string& name, const std::string& ca);
  // A file's text.
  std::string read(const std::string& name) const;

 private:
  void run(const std::string& script);
  std::string dir_;
};

}  // namespace linkage::itest
