#pragma once
// A client that keeps a picture of a world's topology from its StreamState
// alone: it applies every Snapshot's `changes` (or replaces its picture when
// `full` is set) on a reader thread, and checks each frame's id columns
// against the picture it has built.

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace linkage::itest {

class Mirror {
 public:
  struct Picture {
    std::map<IdKey, std::string> bodies;       // id → name
    std::map<IdKey, std::string> constraints;  // id → name
    std::set<IdKey> springs;
    std::set<IdKey> removed_bodies, removed_constraints;  // every removal heard of
    std::uint64_t frames = 0, full_frames = 0, last_tick = 0;
    v1::WorldSettings settings;  // as the last frame that carried them said
    std::uint64_t settings_frames = 0;
    std::vector<std::string> problems;  // frames whose columns disagreed with the picture
    bool ended = false;
    grpc::Status status;  // once ended
  };

  // Opens the stream (constraints included) and starts reading it.
  Mirror(Client& client, const std::string& world, double rate_hz = 0.0);
  ~Mirror();  // cancels the stream and joins the reader
  Mirror(const Mirror&) = delete;
  Mirror& operator=(const Mirror&) = delete;

  // Waits until `pred(picture)` holds, up to `timeout`; false if it never did.
  bool wait_until(const std::function<bool(const Picture&)>& pred, std::chrono::milliseconds timeout = 5s);
  Picture picture() const;
  void cancel();

 private:
  void read();
  void apply(const v1::Snapshot& frame);

  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReader<v1::Snapshot>> reader_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  Picture picture_;
  std::thread thread_;
};

}  // namespace linkage::itest
