#pragma once
// StateStream: one client's stream of a world's snapshots.
//
// The tick thread hands it frames (send) only when it is ready: no write in
// flight and due by its rate. So a slow reader is simply offered fewer
// frames, each the newest, and holds at most the one being written; its
// topology changes are worked out against the last frame it actually got.
// gRPC's threads call OnWriteDone / OnCancel / OnDone; a mutex orders them
// with the tick thread. Finish is called exactly once, never while a write
// is in flight.

#include <grpcpp/grpcpp.h>

#include <memory>
#include <mutex>
#include <optional>

#include "host/registry.hpp"
#include "host/subscriber.hpp"

namespace linkage::server {

class StateStream final : public grpc::ServerWriteReactor<v1::Snapshot>, public Subscriber {
 public:
  // Starts the stream on `host`; the reactor owns itself until OnDone.
  static grpc::ServerWriteReactor<v1::Snapshot>* start(Registry& registry, std::shared_ptr<WorldHost> host,
                                                       std::string peer, double rate_hz, bool constraints,
                                                       bool diagnostics, bool contacts);

  bool ready(Clock::time_point now) override;
  void missed(Clock::time_point now) override;
  std::uint64_t known_version() const override;
  bool wants_constraints() const override { return constraints_; }
  bool wants_diagnostics() const override { return diagnostics_; }
  bool wants_contacts() const override { return contacts_; }
  std::uint64_t known_contact_version() const override;
  void send(std::shared_ptr<const v1::Snapshot> frame) override;
  void end(const std::string& reason) override;

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  StateStream(Registry& registry, std::shared_ptr<WorldHost> host, std::string peer, double rate_hz, bool constraints,
              bool diagnostics, bool contacts);
  // Finishes now, or after the write in flight.
  void finish_locked(grpc::Status status);

  Registry& registry_;
  std::shared_ptr<WorldHost> host_;
  const std::string peer_;  // the client's address, whose unread bytes count the stream and its frame
  const Clock::duration interval_;  // 0: every tick
  const bool constraints_, diagnostics_, contacts_;
  const std::shared_ptr<WorldMeters> meters_;  // null without metrics

  mutable std::mutex mutex_;
  std::shared_ptr<StateStream> self_;                 // keeps the reactor alive until OnDone
  std::shared_ptr<const v1::Snapshot> writing_;       // the frame in flight
  std::size_t writing_bytes_ = 0;                     // its size, counted in Unread
  Clock::time_point next_due_{};
  std::uint64_t known_version_ = 0;
  std::uint64_t known_contact_version_ = 0;
  std::optional<grpc::Status> finish_after_write_;
  bool finished_ = false;
};

}  // namespace linkage::server
