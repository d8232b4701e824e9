#pragma once
// A world as the server hosts it: the core World, the names clients gave its
// bodies and constraints, the log of changes streams report, its footprint,
// its limits and the scene Reset returns to, kept in step by one class.
//
// It is the only way to change a hosted world: every method that changes one
// validates first, changes nothing when it fails, and records in the change
// log what it did (adds, updates with renames, removes, settings, a
// replacement). Callers (the services, the tick loop) read through const
// accessors; nothing outside gets a mutable reference into the World, and
// what the accessors return is valid until the next call that changes the
// world (LoadScene and Reset replace its contents in place).
//
// Commands take the linkage.v1 messages and answer with core ids or proto
// errors whose messages name the request's fields; no gRPC here.
//
// Every change that succeeds is also told, as a record that replays it, to
// the world's ChangeSink if it has one (its journal, durable/): a batch as
// one record, never its parts; a failed change records nothing.

#include <cstdint>
#include <functional>
#include <memory>

#include "change_log.hpp"
#include "convert/convert.hpp"
#include "convert/field_mask.hpp"
#include "convert/footprint.hpp"
#include "convert/names.hpp"
#include "convert/scene_io.hpp"
#include "durable/record.pb.h"
#include "guard.hpp"
#include "memory_gate.hpp"
#include "linkage/linkage.hpp"
#include "linkage/v1/service.pb.h"

namespace linkage::server {

// Per-world caps (the server's flags give the defaults).
struct Limits {
  int max_bodies = 100000;
  int max_constraints = 200000;
  int max_forces = 100000;
  // The most the world's footprint may reach (convert/footprint.hpp), so that
  // every answer about it fits in a message: footprint_limit(--max-message-bytes).
  std::uint64_t max_bytes = (16u << 20) - kAnswerOverhead;
  // The largest max |C| after a tick (m or rad) before the world counts as
  // diverged; 0: no bound (non-finite state is caught regardless).
  double max_error = 0.0;
  WatchdogLimits watchdog;
};

// The counts and max_error, all set (the rest are the server's flags').
void limits_to_proto(const Limits& limits, v1::WorldLimits* out);

template <class T>
using Repeated = google::protobuf::RepeatedPtrField<T>;

// Where a hosted world's accepted changes go (a world's journal).
class ChangeSink {
 public:
  virtual ~ChangeSink() = default;
  virtual void changed(durable::Record record) = 0;
};

class HostedWorld {
 public:
  // What Reset returns to: the scene last loaded.
  struct ResetPoint {
    WorldState world;
    Names names;
    std::uint64_t footprint = 0;  // its Footprint's bytes
  };

  // Not explicit: a World alone is a hosted world with no names and default limits.
  HostedWorld(World world, Names names = {}, Limits limits = {});

  const World& core() const { return world_; }
  const Names& names() const { return names_; }
  const ChangeLog& changes() const { return changes_; }
  const Footprint& footprint() const { return footprint_; }
  const Limits& limits() const { return limits_; }
  // Null for a world no scene was loaded into (Reset empties it).
  const ResetPoint* reset_point() const { return reset_point_.get(); }

  // Records every change from now on into `sink` (null: nowhere); the sink
  // must outlive the world or be unset first.
  void record_to(ChangeSink* sink) { sink_ = sink; }
  // Every change that may grow the world asks `gate` for room first
  // (memory_gate.hpp; null: none), and a step settles what it claimed.
  void govern_memory(std::shared_ptr<MemoryGate> gate) { memory_.govern(std::move(gate)); }
  // Claims room for a world about to be hosted: its contents are in memory
  // already (built from a request, or a fork's copy, caches and all), so
  // what its thread takes besides.
  Status claim_memory() { return memory_.claim(MemoryGate::kWorldBytes); }

  // --- reads, as the services answer them ---

  // The body a reference names; INVALID_ARGUMENT for the empty reference
  // (the world), NOT_FOUND for an unknown id or name.
  Result<BodyId> find_body(const v1::BodyRef& ref, std::string_view field = "body") const;
  void describe(BodyId id, v1::Body* out) const;
  Status describe(ConstraintId id, v1::Constraint* out) const;
  Status describe(ForceId id, v1::Force* out) const;

  // --- bodies ---

  Result<BodyId> create_body(const v1::BodyDef& def);
  // All or nothing; the error names `bodies[i]`.
  Status create_bodies(const Repeated<v1::BodyDef>& defs, Repeated<v1::Id>* ids);
  // Returns the body's id (the reference may be a name the update changed).
  // With a non-empty `mask` only the fields it names change: the rest are
  // the body's as they are now (state included).
  Result<BodyId> update_body(const v1::BodyRef& body, const v1::BodyDef& def,
                             const google::protobuf::FieldMask& mask = {});
  Result<Removed> remove_body(const v1::BodyRef& body);

  // --- constraints ---

  Result<ConstraintId> add_constraint(const v1::ConstraintDef& def);
  // All or nothing; the error names `constraints[i]`.
  Status add_constraints(const Repeated<v1::ConstraintDef>& defs, Repeated<v1::Id>* ids);
  Status update_constraint(const v1::Id& id, const v1::ConstraintDef& def,
                           const google::protobuf::FieldMask& mask = {});
  Status remove_constraint(const v1::Id& id);

  // --- forces ---

  Result<ForceId> add_force(const v1::ForceDef& def);
  Status update_force(const v1::Id& id, const v1::ForceDef& def, const google::protobuf::FieldMask& mask = {});
  Status remove_force(const v1::Id& id);
  Status apply_impulse(const v1::Impulse& impulse);

  // --- the world as a whole ---

  // Runs the commands in order, all or nothing; the error names `commands[i]`.
  Status apply_batch(const Repeated<v1::Command>& commands, Repeated<v1::CommandResult>* results);
  // New settings and limits together (both already checked against the
  // server's policy); INVALID_ARGUMENT "settings.<field>: ..." from the engine.
  // New settings may rebuild the solver: they claim memory as the whole
  // world would.
  Status update(const WorldSettings& settings, const Limits& limits);
  // Replaces the contents with a loaded scene, which becomes the reset point;
  // RESOURCE_EXHAUSTED, changing nothing, past the server's memory.
  Status load_scene(LoadedScene scene);
  // Makes the contents as they are the reset point (linkaged --scene).
  void mark_reset_point();
  // Back to the reset point, or empty (keeping the settings) if there is none.
  // Both this and load_scene leave the world's caches cold (World::clear_caches),
  // as a world restored from the record of either starts. RESOURCE_EXHAUSTED,
  // changing nothing, when the reset point is the larger and the server's
  // memory has no room for it.
  Status reset();

  // --- durability (durable/): none of these is recorded ---

  // Forgets the step's caches; round-off only (at a checkpoint, see World::clear_caches).
  void clear_caches() { world_.clear_caches(); }
  // A restored world's limits and reset point.
  void set_limits(const Limits& limits) { limits_ = limits; }
  void set_reset_point(std::shared_ptr<const ResetPoint> point) { reset_point_ = std::move(point); }

  // --- the tick loop ---

  const StepDiagnostics& step() {
    const StepDiagnostics& d = world_.step();
    memory_.settle();
    return d;
  }
  // Back to a copy of this world taken earlier with the same bodies,
  // constraints and forces (the divergence check's checkpoint): names and
  // change log stay as they are.
  void roll_back(const World& checkpoint);

 private:
  // Runs `body`; if it fails, puts everything back as it was.
  Status atomically(const std::function<Status()>& body);
  // `result` as it is; if it is a success and there is a sink, first tells
  // the sink the record `make(record)` fills in. A failure gives back the
  // memory the change claimed, a success keeps it claimed.
  template <class R, class Make>
  R recorded(R result, Make make);
  // The changes themselves, unrecorded: the public ones record, and a batch
  // is recorded once, not by its parts.
  Result<BodyId> do_create_body(const v1::BodyDef& def);
  Result<BodyId> do_update_body(const v1::BodyRef& body, const v1::BodyDef& def,
                                const google::protobuf::FieldMask& mask);
  Result<Removed> do_remove_body(const v1::BodyRef& body);
  Result<ConstraintId> do_add_constraint(const v1::ConstraintDef& def);
  // Changes the definition, then the softness: a refused softness leaves the
  // new definition in place, so its callers run it atomically.
  Status do_update_constraint(const v1::Id& id, const v1::ConstraintDef& def, const google::protobuf::FieldMask& mask);
  Status do_remove_constraint(const v1::Id& id);
  Result<ForceId> do_add_force(const v1::ForceDef& def);
  Status do_update_force(const v1::Id& id, const v1::ForceDef& def, const google::protobuf::FieldMask& mask);
  Status do_remove_force(const v1::Id& id);
  Status do_apply_impulse(const v1::Impulse& impulse);
  Status run_command(const v1::Command& command, v1::CommandResult* result);
  // A batch's `count` removals of one kind (bodies or constraints) from
  // commands[first], with the results and the first error (its index in
  // `failed`) that running them one by one gives, in one pass over the
  // world where one by one took a pass each (a batch removing 10,000 of
  // 100,000 bodies held the world for 70 s).
  Status run_removals(const Repeated<v1::Command>& commands, int first, int count,
                      Repeated<v1::CommandResult>* results, int* failed);
  Status remove_bodies_at_once(const std::vector<BodyId>& ids, Repeated<v1::CommandResult>* results);
  Status remove_constraints_at_once(const std::vector<ConstraintId>& ids, Repeated<v1::CommandResult>* results);
  Status room(std::size_t count, int limit, const char* what, int n, const char* field) const;
  // Whether the footprint may grow from `old_bytes` to `new_bytes` for one
  // object: under the world's limit, and with the server's memory's leave.
  Status fits(std::uint32_t old_bytes, std::uint32_t new_bytes);
  // Room in the server's memory for the whole footprint becoming `bytes`
  // (a scene loaded, a reset): nothing to ask if it shrinks.
  Status grows_to(std::uint64_t bytes);
  BodyResolver resolve() const { return resolver(world_, names_); }
  int dimension() const { return world_.settings().dimension; }

  World world_;
  Names names_;
  Limits limits_;
  ChangeLog changes_{};
  Footprint footprint_{};
  std::shared_ptr<const ResetPoint> reset_point_{};
  ChangeSink* sink_ = nullptr;
  MemoryClaim memory_{};
};

}  // namespace linkage::server
