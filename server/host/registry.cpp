#include "registry.hpp"

#include <algorithm>
#include <cctype>

#include "durable/data_dir.hpp"
#include "log/log.hpp"

namespace linkage::server {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; });
}

Result<std::shared_ptr<WorldHost>> Registry::create(const std::string& name, World world, Names names, Limits limits,
                                                    bool paused) {
  return create(name, WorldHost::State{.world = HostedWorld(std::move(world), std::move(names), limits), .paused = paused});
}

Result<std::shared_ptr<WorldHost>> Registry::create(const std::string& name, WorldHost::State state) {
  if (!valid_name(name))
    return field_error(ErrorCode::invalid_argument,
                 "name", quote(name) + " is not a world name (1 to 64 letters, digits, '-', '_' or '.')");
  reap();
  std::lock_guard lock(mutex_);
  if (worlds_.count(name))
    return field_error(ErrorCode::failed_precondition, "name", "a world named " + quote(name) + " exists");
  if (static_cast<int>(worlds_.size()) >= limits_.max_worlds)
    return Error{ErrorCode::resource_exhausted,
                 "the server holds its maximum of " + std::to_string(limits_.max_worlds) +
                     " worlds (--max-worlds); delete one first"};
  state.world.govern_memory(memory_);
  if (Status ok = state.world.claim_memory(); !ok) return ok.error();
  std::unique_ptr<durable::WorldStore> store;
  if (data_) {
    Result<std::unique_ptr<durable::WorldStore>> made = data_->create(name, state);
    if (!made)
      return Error{ErrorCode::failed_precondition,
                   "cannot keep the world in the data directory (--data-dir): " + made.error().message};
    store = std::move(made.value());
  }
  const World& world = state.world.core();
  log::event(spdlog::level::info, "world.created", name,
             "created with " + std::to_string(world.body_count()) + " bodies" + (state.paused ? ", paused" : ""),
             {{"bodies", world.body_count()}, {"constraints", world.constraint_count()}, {"paused", state.paused}});
  auto host = std::make_shared<WorldHost>(name, std::move(state), std::move(store));
  worlds_.emplace(name, host);
  return host;
}

std::shared_ptr<WorldHost> Registry::adopt(const std::string& name, WorldHost::State state,
                                           std::unique_ptr<durable::WorldStore> store) {
  state.world.govern_memory(memory_);
  auto host = std::make_shared<WorldHost>(name, std::move(state), std::move(store));
  std::lock_guard lock(mutex_);
  worlds_.emplace(name, host);
  return host;
}

std::shared_ptr<WorldHost> Registry::find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = worlds_.find(name);
  return it == worlds_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<WorldHost>> Registry::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<WorldHost>> out;
  for (const auto& [name, host] : worlds_) out.push_back(host);
  return out;
}

bool Registry::remove(const std::string& name, const std::string& reason) {
  std::shared_ptr<WorldHost> host;
  {
    std::lock_guard lock(mutex_);
    const auto it = worlds_.find(name);
    if (it == worlds_.end()) return false;
    host = it->second;
    worlds_.erase(it);
    removed_.push_back(host);
    // Gone from disk before the answer, so that a restart does not bring it back.
    if (data_ && host->store()) data_->discard(name, *host->store());
  }
  host->request_stop(reason);
  log::event(spdlog::level::info, "world.deleted", name, "deleted");
  reap();
  return true;
}

void Registry::reap() {
  std::vector<std::shared_ptr<WorldHost>> ended;
  {
    std::lock_guard lock(mutex_);
    const auto split =
        std::stable_partition(removed_.begin(), removed_.end(), [](const auto& h) { return !h->stopped(); });
    ended.assign(std::make_move_iterator(split), std::make_move_iterator(removed_.end()));
    removed_.erase(split, removed_.end());
  }
  // Destroyed here, outside the lock: joining an ended thread is instant,
  // freeing a big world is not.
}

void Registry::request_stop_all(const std::string& reason) {
  std::vector<std::shared_ptr<WorldHost>> hosts;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, host] : worlds_) hosts.push_back(host);
  }
  for (auto& host : hosts) host->request_stop(reason);
}

bool Registry::wait_stopped(Clock::time_point deadline) {
  std::vector<std::shared_ptr<WorldHost>> hosts;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, host] : worlds_) hosts.push_back(host);
    hosts.insert(hosts.end(), removed_.begin(), removed_.end());
  }
  return std::all_of(hosts.begin(), hosts.end(), [&](const auto& h) { return h->wait_stopped(deadline); });
}

void Registry::stop_all(const std::string& reason) {
  // All at once: the worlds' last steps overlap instead of adding up.
  request_stop_all(reason);
  std::map<std::string, std::shared_ptr<WorldHost>> worlds;
  std::vector<std::shared_ptr<WorldHost>> removed;
  {
    std::lock_guard lock(mutex_);
    worlds.swap(worlds_);
    removed.swap(removed_);
  }
  for (auto& [name, host] : worlds) host->stop(reason);
  for (auto& host : removed) host->stop(reason);
}

bool Registry::acquire_stream() {
  int n = streams_.load();
  while (n < limits_.max_streams)
    if (streams_.compare_exchange_weak(n, n + 1)) return true;
  return false;
}

void Registry::release_stream() { --streams_; }

}  // namespace linkage::server
