#include "mirror.hpp"

namespace linkage::itest {
namespace {

std::string text(const IdKey& id) { return std::to_string(id.first) + ":" + std::to_string(id.second); }

}  // namespace

Mirror::Mirror(Client& client, const std::string& world, double rate_hz) : context_(context(30s)) {
  v1::StreamStateRequest req;
  req.set_world(world);
  req.set_rate_hz(rate_hz);
  req.set_constraints(true);
  reader_ = client.worlds->StreamState(context_.get(), req);
  thread_ = std::thread([this] { read(); });
}

Mirror::~Mirror() {
  cancel();
  thread_.join();
}

void Mirror::cancel() { context_->TryCancel(); }

bool Mirror::wait_until(const std::function<bool(const Picture&)>& pred, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return pred(picture_); });
}

Mirror::Picture Mirror::picture() const {
  std::lock_guard lock(mutex_);
  return picture_;
}

void Mirror::read() {
  v1::Snapshot frame;
  while (reader_->Read(&frame)) {
    std::lock_guard lock(mutex_);
    apply(frame);
    changed_.notify_all();
  }
  const grpc::Status status = reader_->Finish();
  std::lock_guard lock(mutex_);
  picture_.ended = true;
  picture_.status = status;
  changed_.notify_all();
}

void Mirror::apply(const v1::Snapshot& frame) {
  Picture& p = picture_;
  const v1::TopologyChanges& c = frame.changes();
  const std::string at = "tick " + std::to_string(frame.tick()) + ": ";
  ++p.frames;
  p.last_tick = frame.tick();
  if (p.frames == 1 && !c.full()) p.problems.push_back(at + "the first frame is not a full one");
  if (c.full() && !c.has_settings()) p.problems.push_back(at + "a full frame without the settings");
  if (c.has_settings()) {
    p.settings = c.settings();
    ++p.settings_frames;
  }
  if (c.full()) {
    ++p.full_frames;
    p.bodies.clear();
    p.constraints.clear();
    p.springs.clear();
  }
  for (const v1::Body& b : c.added_bodies())
    if (!p.bodies.emplace(key(b.id()), b.def().name()).second)
      p.problems.push_back(at + "body " + text(key(b.id())) + " added twice");
  for (const v1::Id& id : c.removed_bodies()) {
    if (p.bodies.erase(key(id)) == 0) p.problems.push_back(at + "unknown body " + text(key(id)) + " removed");
    p.removed_bodies.insert(key(id));
  }
  for (const v1::Constraint& k : c.added_constraints())
    if (!p.constraints.emplace(key(k.id()), k.def().name()).second)
      p.problems.push_back(at + "constraint " + text(key(k.id())) + " added twice");
  for (const v1::Id& id : c.removed_constraints()) {
    if (p.constraints.erase(key(id)) == 0)
      p.problems.push_back(at + "unknown constraint " + text(key(id)) + " removed");
    p.removed_constraints.insert(key(id));
  }
  for (const v1::Force& f : c.added_springs()) p.springs.insert(key(f.id()));
  for (const v1::Id& id : c.removed_springs()) p.springs.erase(key(id));

  // The frame's columns are the world at that tick: they must list exactly
  // the bodies and constraints the changes have told us about.
  std::set<IdKey> columns;
  if (frame.body_index_size() != frame.body_generation_size())
    p.problems.push_back(at + "body_index and body_generation differ in length");
  for (int i = 0; i < frame.body_index_size() && i < frame.body_generation_size(); ++i)
    columns.insert({frame.body_index(i), frame.body_generation(i)});
  std::set<IdKey> known;
  for (const auto& [id, name] : p.bodies) known.insert(id);
  if (columns != known)
    p.problems.push_back(at + "the frame has " + std::to_string(columns.size()) + " bodies, the picture " +
                         std::to_string(known.size()));
  const int dim = frame.dimension();
  if (frame.position_size() != dim * frame.body_index_size() || frame.velocity_size() != dim * frame.body_index_size())
    p.problems.push_back(at + "position/velocity columns do not hold dimension values per body");
  columns.clear();
  known.clear();
  for (int i = 0; i < frame.constraint_index_size() && i < frame.constraint_generation_size(); ++i)
    columns.insert({frame.constraint_index(i), frame.constraint_generation(i)});
  for (const auto& [id, name] : p.constraints) known.insert(id);
  if (columns != known)
    p.problems.push_back(at + "the frame has " + std::to_string(columns.size()) + " constraints, the picture " +
                         std::to_string(known.size()));
}

}  // namespace linkage::itest
