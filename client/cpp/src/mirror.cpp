#include "linkage/client/mirror.hpp"

#include "linkage/client/proto.hpp"

namespace linkage::client {

void WorldMirror::apply(const v1::Snapshot& frame) {
  const v1::TopologyChanges& c = frame.changes();
  ++frames_;
  tick_ = frame.tick();
  time_ = frame.time();
  topology_version_ = frame.topology_version();
  if (c.has_settings()) settings_ = c.settings();
  if (c.full()) {
    bodies_.clear();
    constraints_.clear();
    springs_.clear();
  }
  // Removals name ids from before this frame and additions ids made after
  // the last one; ids are never reused, so the order between them is free.
  for (const v1::Id& id : c.removed_bodies()) inconsistencies_ += bodies_.erase(from_proto(id)) == 0;
  for (const v1::Id& id : c.removed_constraints()) inconsistencies_ += constraints_.erase(from_proto(id)) == 0;
  for (const v1::Id& id : c.removed_springs()) inconsistencies_ += springs_.erase(from_proto(id)) == 0;
  for (const v1::Body& b : c.added_bodies()) inconsistencies_ += !bodies_.insert_or_assign(from_proto(b.id()), b).second;
  for (const v1::Constraint& k : c.added_constraints())
    inconsistencies_ += !constraints_.insert_or_assign(from_proto(k.id()), k).second;
  for (const v1::Force& f : c.added_springs()) inconsistencies_ += !springs_.insert_or_assign(from_proto(f.id()), f).second;
  // Updates replace what the picture holds of objects it already knows
  // (new definitions, renames); the columns below then give bodies' state.
  auto update = [this](auto& map, const auto& message) {
    auto it = map.find(from_proto(message.id()));
    if (it == map.end()) {
      ++inconsistencies_;
      return;
    }
    it->second = message;
  };
  for (const v1::Body& b : c.updated_bodies()) update(bodies_, b);
  for (const v1::Constraint& k : c.updated_constraints()) update(constraints_, k);
  for (const v1::Force& f : c.updated_springs()) update(springs_, f);
  apply_contacts(frame);

  // The columns: the state of every body at this tick, in the world's order.
  const int dim = frame.dimension();
  const int n = frame.body_index_size();
  if (frame.body_generation_size() != n || frame.position_size() != dim * n || frame.velocity_size() != dim * n)
    return;
  const bool angles = frame.angle_size() == n && frame.angular_velocity_size() == n;
  for (int i = 0; i < n; ++i) {
    auto it = bodies_.find(Id{frame.body_index(i), frame.body_generation(i)});
    if (it == bodies_.end()) {
      ++inconsistencies_;
      continue;
    }
    v1::BodyDef* def = it->second.mutable_def();
    def->mutable_position()->set_x(frame.position(dim * i));
    def->mutable_position()->set_y(frame.position(dim * i + 1));
    def->mutable_position()->set_z(dim == 3 ? frame.position(dim * i + 2) : 0.0);
    def->mutable_velocity()->set_x(frame.velocity(dim * i));
    def->mutable_velocity()->set_y(frame.velocity(dim * i + 1));
    def->mutable_velocity()->set_z(dim == 3 ? frame.velocity(dim * i + 2) : 0.0);
    if (angles) {
      def->set_angle(frame.angle(i));
      def->set_angular_velocity(frame.angular_velocity(i));
    }
  }
  // λ and error per constraint row, when the stream carries them.
  const int m = frame.constraint_index_size();
  if (frame.constraint_generation_size() != m || frame.constraint_rows_size() != m) return;
  int row = 0;
  for (int i = 0; i < m; ++i) {
    const int rows = static_cast<int>(frame.constraint_rows(i));
    auto it = constraints_.find(Id{frame.constraint_index(i), frame.constraint_generation(i)});
    if (it != constraints_.end() && row + rows <= frame.lambda_size() && row + rows <= frame.error_size()) {
      it->second.clear_lambda();
      it->second.clear_error();
      for (int r = row; r < row + rows; ++r) {
        it->second.add_lambda(frame.lambda(r));
        it->second.add_error(frame.error(r));
      }
    }
    row += rows;
  }
}

void WorldMirror::apply_contacts(const v1::Snapshot& frame) {
  if (frame.contact_events_full()) touching_.clear();
  contact_changes_.clear();
  for (const v1::ContactEvent& e : frame.contact_events()) {
    const ContactChange change{e.kind() == v1::CONTACT_EVENT_KIND_BEGIN, e.tick(), from_proto(e.a()), from_proto(e.b())};
    if (change.begin) {
      inconsistencies_ += !touching_.emplace(change.a, change.b).second;
    } else {
      inconsistencies_ += touching_.erase({change.a, change.b}) == 0;
    }
    contact_changes_.push_back(change);
  }
  contacts_.clear();
  const int dim = frame.dimension(), n = frame.contact_a_index_size();
  if (frame.contact_a_generation_size() != n || frame.contact_b_index_size() != n ||
      frame.contact_b_generation_size() != n || frame.contact_point_size() != dim * n ||
      frame.contact_normal_size() != dim * n || frame.contact_separation_size() != n ||
      frame.contact_normal_impulse_size() != n || frame.contact_tangent_impulse_size() != n)
    return;
  auto vec = [dim](const google::protobuf::RepeatedField<double>& column, int i) {
    return Vec3{column.Get(dim * i), column.Get(dim * i + 1), dim == 3 ? column.Get(dim * i + 2) : 0.0};
  };
  contacts_.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    contacts_.push_back({Id{frame.contact_a_index(i), frame.contact_a_generation(i)},
                         Id{frame.contact_b_index(i), frame.contact_b_generation(i)}, vec(frame.contact_point(), i),
                         vec(frame.contact_normal(), i), frame.contact_separation(i), frame.contact_normal_impulse(i),
                         frame.contact_tangent_impulse(i)});
}

std::optional<Id> WorldMirror::body_named(const std::string& name) const {
  for (const auto& [id, body] : bodies_)
    if (body.def().name() == name) return id;
  return std::nullopt;
}

}  // namespace linkage::client
