#include "calls.hpp"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <stdexcept>

#include "linkage/v1/service.pb.h"

namespace linkage::fuzz {

const std::vector<Call>& methods() {
  static const std::vector<Call> all = [] {
    std::vector<Call> out;
    const google::protobuf::FileDescriptor* file = v1::CreateWorldRequest::descriptor()->file();
    for (int s = 0; s < file->service_count(); ++s) {
      const google::protobuf::ServiceDescriptor* service = file->service(s);
      for (int m = 0; m < service->method_count(); ++m) {
        const google::protobuf::MethodDescriptor* method = service->method(m);
        out.push_back({"/" + service->full_name() + "/" + method->name(), method->server_streaming(), {}});
      }
    }
    std::sort(out.begin(), out.end(), [](const Call& a, const Call& b) { return a.method < b.method; });
    return out;
  }();
  return all;
}

std::vector<Call> decode(std::string_view input, std::size_t max_calls) {
  std::vector<Call> calls;
  while (input.size() >= 3 && calls.size() < max_calls) {
    Call call = methods()[static_cast<unsigned char>(input[0]) % methods().size()];
    const std::size_t length = static_cast<unsigned char>(input[1]) | static_cast<std::size_t>(static_cast<unsigned char>(input[2])) << 8;
    input.remove_prefix(3);
    call.request = std::string(input.substr(0, length));
    input.remove_prefix(std::min(length, input.size()));
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string encode(const std::vector<Call>& calls) {
  std::string out;
  for (const Call& c : calls) {
    const auto it = std::find_if(methods().begin(), methods().end(), [&](const Call& m) { return m.method == c.method; });
    if (it == methods().end()) throw std::invalid_argument("no method " + c.method);
    if (c.request.size() > 0xffff) throw std::invalid_argument("a request of more than 65535 bytes: " + c.method);
    out += static_cast<char>(it - methods().begin());
    out += static_cast<char>(c.request.size() & 0xff);
    out += static_cast<char>(c.request.size() >> 8);
    out += c.request;
  }
  return out;
}

}  // namespace linkage::fuzz
