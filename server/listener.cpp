#include "listener.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "host/peer.hpp"
#include "log/log.hpp"

namespace linkage::server {
namespace {

using Clock = std::chrono::steady_clock;

// How often, at most, the open connections are counted again (an fstat
// each) while a limit is reached: every kRecount, and no more than one
// kRecountShare-th of the loop's time; and how often refusals are logged.
constexpr auto kRecount = std::chrono::milliseconds(20);
constexpr int kRecountShare = 10;
constexpr auto kLogEvery = std::chrono::seconds(10);
// Connections taken from one listening socket before looking at the others.
constexpr int kBurst = 64;

// A connection handed to gRPC, known by its socket's identity: gRPC closes
// the descriptor, and its number may then name another file.
struct Handed {
  int fd;
  dev_t dev;
  ino_t ino;
  std::string peer;
  std::uint16_t port;
};

bool still_open(const Handed& h) {
  struct stat st{};
  return ::fstat(h.fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == h.dev && st.st_ino == h.ino;
}

// The peer's address without its port (an IPv4 address mapped into IPv6 as
// itself), the key of the per-peer limit.
std::string peer_key(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    return std::string(reinterpret_cast<const char*>(&in.sin_addr), sizeof in.sin_addr);
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    const char* bytes = reinterpret_cast<const char*>(&in6.sin6_addr);
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) return std::string(bytes + 12, 4);
    return std::string(bytes, sizeof in6.sin6_addr);
  }
  return {};
}

std::uint16_t peer_port(const sockaddr_storage& a) {
  return ntohs(a.ss_family == AF_INET ? reinterpret_cast<const sockaddr_in&>(a).sin_port
                                      : reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
}

std::string error_text(int error) { return std::strerror(error); }

}  // namespace

int connection_limit(int max_connections, std::uint64_t files) {
  if (max_connections > 0) return max_connections;
  const std::uint64_t room = files > static_cast<std::uint64_t>(2 * kReservedFiles) ? files - kReservedFiles : files / 2;
  return static_cast<int>(std::min<std::uint64_t>(std::max<std::uint64_t>(room, 1), 1u << 30));
}

Result<std::unique_ptr<Listener>> Listener::open(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Error{ErrorCode::invalid_argument, "--listen: host:port, got " + address};
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoi(port) > 65535)
    return Error{ErrorCode::invalid_argument, "--listen " + address + ": the port must be a number from 0 to 65535, got '" + port + "'"};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int e = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found); e != 0)
    return Error{ErrorCode::invalid_argument, "--listen " + address + ": " + ::gai_strerror(e)};
  bool any_v4 = false;
  for (const addrinfo* a = found; a; a = a->ai_next) any_v4 = any_v4 || a->ai_family == AF_INET;

  std::unique_ptr<Listener> l(new Listener());
  int chosen = 0;  // the port bound first, for the rest when port 0 picks one
  std::string why;
  for (const addrinfo* a = found; a; a = a->ai_next) {
    if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
    const int s = ::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) {
      why = error_text(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (a->ai_family == AF_INET6) {
      // [::] alone serves IPv4 too; beside an IPv4 address of its own, not.
      const int only = any_v4 ? 1 : 0;
      ::setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof only);
    }
    sockaddr_storage at{};
    std::memcpy(&at, a->ai_addr, a->ai_addrlen);
    if (chosen != 0) {
      if (at.ss_family == AF_INET) reinterpret_cast<sockaddr_in&>(at).sin_port = htons(static_cast<std::uint16_t>(chosen));
      if (at.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6&>(at).sin6_port = htons(static_cast<std::uint16_t>(chosen));
    }
    if (::bind(s, reinterpret_cast<const sockaddr*>(&at), a->ai_addrlen) != 0 || ::listen(s, SOMAXCONN) != 0) {
      why = error_text(errno);
      ::close(s);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&bound), &len);
    chosen = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in&>(bound).sin_port
                                              : reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
    l->sockets_.push_back(s);
  }
  ::freeaddrinfo(found);
  if (l->sockets_.empty()) return Error{ErrorCode::failed_precondition, "cannot listen on " + address + ": " + why};
  l->port_ = chosen;
  l->wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (l->wake_ < 0) return Error{ErrorCode::failed_precondition, "cannot listen on " + address + ": " + error_text(errno)};
  return l;
}

Listener::~Listener() {
  stop();
  for (const int s : sockets_) ::close(s);
  if (wake_ >= 0) ::close(wake_);
}

void Listener::start(grpc::experimental::ExternalConnectionAcceptor* acceptor, ListenerLimits limits) {
  thread_ = std::thread([this, acceptor, limits] { run(acceptor, limits); });
}

void Listener::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_, &one, sizeof one);
  thread_.join();
}

void Listener::close_connection(const std::string& grpc_peer, const std::string& why) {
  {
    std::lock_guard lock(closing_mutex_);
    closing_.emplace_back(grpc_peer, why);
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_, &one, sizeof one);
}

void Listener::run(grpc::experimental::ExternalConnectionAcceptor* acceptor, ListenerLimits limits) {
  std::vector<pollfd> polled;
  for (const int s : sockets_) polled.push_back({s, POLLIN, 0});
  polled.push_back({wake_, POLLIN, 0});
  // Kept open so that a connection can still be taken and closed when no
  // descriptor is left: otherwise it waits in the backlog, and poll() wakes
  // for it again and again.
  int reserve = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<Handed> handed;
  std::map<std::string, int> per_peer;
  Clock::time_point next_count{}, logged = Clock::now();
  ListenerCounters& c = *counters_;
  struct {
    std::uint64_t over_limit = 0, over_peer_limit = 0, out_of_files = 0;
  } reported;  // the refusals the log has told of

  // Forgets the connections gRPC has closed.
  auto recount = [&] {
    const Clock::time_point start = Clock::now();
    if (start < next_count) return;
    std::erase_if(handed, [&](const Handed& h) {
      if (still_open(h)) return false;
      if (--per_peer[h.peer] == 0) per_peer.erase(h.peer);
      return true;
    });
    c.open = static_cast<int>(handed.size());
    const Clock::time_point end = Clock::now();
    next_count = end + std::max<Clock::duration>(kRecount, kRecountShare * (end - start));
  };
  auto report = [&](bool now) {
    const std::uint64_t refused = c.over_limit + c.over_peer_limit + c.out_of_files,
                        before = reported.over_limit + reported.over_peer_limit + reported.out_of_files;
    if (refused == before || (!now && Clock::now() - logged < kLogEvery)) return;
    log::event(spdlog::level::warn, "server.connections_refused", "",
               fmt::format("refused {} connections: {} past the limit of {} open, {} past {} from one address, {} "
                           "with no file descriptor left; {} open",
                           refused - before, c.over_limit - reported.over_limit, limits.max_connections,
                           c.over_peer_limit - reported.over_peer_limit, limits.max_per_peer,
                           c.out_of_files - reported.out_of_files, handed.size()),
               {{"over_limit", c.over_limit - reported.over_limit},
                {"over_peer_limit", c.over_peer_limit - reported.over_peer_limit},
                {"out_of_files", c.out_of_files - reported.out_of_files},
                {"open", handed.size()},
                {"max_connections", limits.max_connections},
                {"max_per_peer", limits.max_per_peer}});
    reported = {c.over_limit, c.over_peer_limit, c.out_of_files};
    logged = Clock::now();
  };

  for (;;) {
    const int ready = ::poll(polled.data(), polled.size(), static_cast<int>(kLogEvery / std::chrono::milliseconds(1)));
    if (ready < 0) {  // EINTR, or the kernel's ENOMEM for a moment
      if (errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (polled.back().revents != 0) {
      if (stopping_) break;
      std::uint64_t woken = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_, &woken, sizeof woken);
      std::vector<std::pair<std::string, std::string>> closing;
      {
        std::lock_guard lock(closing_mutex_);
        closing.swap(closing_);
      }
      // Here, where connections are accepted: the descriptor checked to be
      // the socket handed over cannot be closed and taken by a new one
      // before it is shut down, except by a file gRPC opens meanwhile,
      // which shutdown() refuses (not a socket).
      for (const auto& [grpc_peer, why] : closing) {
        sockaddr_storage address{};
        if (!parse_grpc_peer(grpc_peer, address)) continue;
        const std::string key = peer_key(address);
        const std::uint16_t port = peer_port(address);
        for (const Handed& h : handed) {
          if (h.peer != key || h.port != port || !still_open(h)) continue;
          if (::shutdown(h.fd, SHUT_RDWR) == 0) {
            ++c.closed;
            const std::string peer = decoded_peer(grpc_peer);
            log::event(spdlog::level::warn, "server.connection_closed", "",
                       fmt::format("closed the connection from {}: {}", peer, why), {{"peer", peer}, {"reason", why}});
          }
          break;
        }
      }
    }
    report(false);
    for (std::size_t i = 0; i + 1 < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      const int listening = polled[i].fd;
      for (int taken = 0; taken < kBurst; ++taken) {
        sockaddr_storage peer{};
        socklen_t len = sizeof peer;
        const int fd = ::accept4(listening, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          const int e = errno;
          if (e == EAGAIN || e == EWOULDBLOCK) break;
          if (e == EINTR || e == ECONNABORTED || e == EPROTO) continue;
          if (e == EMFILE || e == ENFILE) {
            ++c.out_of_files;
            if (reserve >= 0) {
              ::close(reserve);
              const int shed = ::accept4(listening, nullptr, nullptr, SOCK_CLOEXEC);
              if (shed >= 0) ::close(shed);
              reserve = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            } else {
              reserve = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
              std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            recount();
            break;
          }
          // ENOBUFS, ENOMEM and the like: the kernel's, for a moment.
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          break;
        }
        const std::string key = peer_key(peer);
        auto from_peer = [&] {
          const auto it = per_peer.find(key);
          return it == per_peer.end() ? 0 : it->second;
        };
        if (static_cast<int>(handed.size()) >= limits.max_connections ||
            (limits.max_per_peer > 0 && from_peer() >= limits.max_per_peer))
          recount();
        if (static_cast<int>(handed.size()) >= limits.max_connections) {
          ++c.over_limit;
          ::close(fd);
          continue;
        }
        if (limits.max_per_peer > 0 && from_peer() >= limits.max_per_peer) {
          ++c.over_peer_limit;
          ::close(fd);
          continue;
        }
        struct stat st{};
        if (::fstat(fd, &st) != 0) {
          ::close(fd);
          continue;
        }
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        handed.push_back({fd, st.st_dev, st.st_ino, key, peer_port(peer)});
        ++per_peer[key];
        c.open = static_cast<int>(handed.size());
        ++c.accepted;
        grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
        p.listener_fd = listening;
        p.fd = fd;
        acceptor->HandleNewConnection(&p);
      }
    }
  }
  report(true);
  if (reserve >= 0) ::close(reserve);
}

}  // namespace linkage::server
