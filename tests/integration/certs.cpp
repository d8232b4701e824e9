#include "certs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace linkage::itest {

TestCerts::TestCerts() {
  std::string pattern = (std::filesystem::temp_directory_path() / "linkage-certs-XXXXXX").string();
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  dir_ = pattern;
}

TestCerts::~TestCerts() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void TestCerts::run(const std::string& script) {
  const std::string command = "cd '" + dir_ + "' && { " + script + " ; } >openssl.log 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << "openssl failed: " << script << "\n" << read("openssl.log");
}

void TestCerts::make_ca(const std::string& name) {
  run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + name +
      " -keyout " + name + ".key -out " + name + ".pem");
}

void TestCerts::make_cert(const std::string& name, const std::string& ca) {
  run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + name + " -keyout " + name +
      ".key -out " + name + ".csr && printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' >" + name +
      ".ext && openssl x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " + ca +
      ".key -CAcreateserial -days 2 -extfile " + name + ".ext -out " + name + ".pem");
}

std::string TestCerts::read(const std::string& name) const {
  std::ifstream in(path(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace linkage::itest
