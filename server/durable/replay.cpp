#include "replay.hpp"

#include <algorithm>
#include <limits>

#include "convert/convert.hpp"
#include "durable/contents.hpp"
#include "durable/frame.hpp"
#include "durable/layout.hpp"
#include "host/describe.hpp"

namespace linkage::server::durable {
namespace {

Error bad(std::string message) { return Error{ErrorCode::invalid_argument, std::move(message)}; }

Halt halt_from_proto(const v1::Halt& h) {
  Halt out;
  switch (h.reason()) {
    case v1::HALT_REASON_WATCHDOG: out.reason = HaltReason::watchdog; break;
    case v1::HALT_REASON_DIVERGED: out.reason = HaltReason::diverged; break;
    default: out.reason = HaltReason::none; break;
  }
  out.tick = h.tick();
  out.message = h.message();
  return out;
}

void clock_from_proto(const Clock& c, WorldHost::State& s) {
  s.paused = c.paused();
  s.halt = halt_from_proto(c.halt());
  s.watchdog_halts = c.watchdog_halts();
  s.divergences = c.divergences();
}

// `from`'s counts and max_error over `base`'s other limits.
Limits with_counts(const Limits& from, Limits base) {
  base.max_bodies = from.max_bodies;
  base.max_constraints = from.max_constraints;
  base.max_forces = from.max_forces;
  base.max_error = from.max_error;
  return base;
}

// The recorded counts and max_error over `base`'s other limits.
Limits limits_from(const v1::WorldLimits& l, Limits base) {
  base.max_bodies = l.max_bodies();
  base.max_constraints = l.max_constraints();
  base.max_forces = l.max_forces();
  base.max_error = l.max_error();
  return base;
}

// While replaying, a world's footprint is not bounded: what it held was
// accepted then, whatever --max-message-bytes says now.
Limits unbounded(Limits l) {
  l.max_bytes = std::numeric_limits<std::uint64_t>::max();
  return l;
}

Status applied(Status status, const char* what) {
  if (status) return status;
  return bad(std::string(what) + " failed on replay: " + status.error().message);
}

template <class T>
Status applied(const Result<T>& result, const char* what) {
  return result ? ok_status() : bad(std::string(what) + " failed on replay: " + result.error().message);
}

struct Start {
  Checkpoint checkpoint;
  WorldHost::State state;
};

// The checkpoint in `file` as a world's state; INVALID_ARGUMENT saying what is wrong.
Result<Start> read_checkpoint(const Dir& dir, const std::string& file, const Limits& base) {
  Result<std::string> bytes = dir.read(file);
  if (!bytes) return bytes.error();
  FrameReader reader(bytes.value(), kCheckpointMagic);
  std::string_view payload;
  if (reader.next(payload) != FrameReader::Next::record) return bad(file + ": " + reader.damage());
  Checkpoint c;
  if (!c.ParseFromString(std::string(payload))) return bad(file + ": not a checkpoint message");
  Result<WorldContents> contents = contents_from_proto(c.contents());
  if (!contents) return bad(file + ": " + contents.error().message);
  Start start{c, WorldHost::State{.world = HostedWorld(std::move(contents.value().world), std::move(contents.value().names),
                                                       unbounded(limits_from(c.limits(), base)))}};
  if (c.has_reset_point()) {
    Result<WorldContents> point = contents_from_proto(c.reset_point());
    if (!point) return bad(file + ": its reset point: " + point.error().message);
    const std::uint64_t footprint = Footprint::of(point.value().world, point.value().names).bytes();
    start.state.world.set_reset_point(std::make_shared<const HostedWorld::ResetPoint>(
        HostedWorld::ResetPoint{point.value().world.save(), std::move(point.value().names), footprint}));
  }
  start.state.tick = c.tick();
  start.state.overruns = c.overruns();
  clock_from_proto(c.clock(), start.state);
  return start;
}

// Steps to `tick`; false where `stop` ended it short.
bool step_to(std::uint64_t tick, WorldHost::State& s, const StopReplay& stop) {
  while (s.tick < tick) {
    if (stop && stop()) return false;
    s.world.step();
    ++s.tick;
  }
  return true;
}

Error stopped_at(const WorldHost::State& s) {
  return Error{ErrorCode::failed_precondition, "the replay was stopped at tick " + std::to_string(s.tick)};
}

}  // namespace

void clock_to_proto(const WorldHost::State& s, Clock* out) {
  out->set_paused(s.paused);
  if (s.halt.reason != HaltReason::none) halt_to_proto(s.halt, out->mutable_halt());
  out->set_watchdog_halts(s.watchdog_halts);
  out->set_divergences(s.divergences);
}

Status apply(const Record& r, WorldHost::State& s, const StopReplay& stop) {
  if (r.tick() < s.tick)
    return bad("a record at tick " + std::to_string(r.tick()) + " after tick " + std::to_string(s.tick));
  if (!step_to(r.tick(), s, stop)) return stopped_at(s);
  HostedWorld& w = s.world;
  switch (r.change_case()) {
    case Record::kStepped: return ok_status();
    case Record::kCommand: {
      Repeated<v1::Command> one;
      *one.Add() = r.command();
      Repeated<v1::CommandResult> results;
      return applied(w.apply_batch(one, &results), "a command");
    }
    case Record::kBatch: {
      Repeated<v1::CommandResult> results;
      return applied(w.apply_batch(r.batch().commands(), &results), "a batch");
    }
    case Record::kUpdateForce:
      return applied(w.update_force(r.update_force().id(), r.update_force().force(), r.update_force().update_mask()),
                     "a force update");
    case Record::kSettings: {
      Result<WorldSettings> settings = settings_from_proto(r.settings().settings(), w.core().settings());
      if (!settings) return applied(settings, "a settings update");
      settings.value().dt = r.settings().dt();
      return applied(w.update(settings.value(), unbounded(limits_from(r.settings().limits(), w.limits()))),
                     "a settings update");
    }
    case Record::kClock: clock_from_proto(r.clock(), s); return ok_status();
    case Record::kScene: {
      Result<WorldContents> contents = contents_from_proto(r.scene());
      if (!contents) return applied(contents, "a scene");
      Footprint footprint = Footprint::of(contents.value().world, contents.value().names);
      return applied(
          w.load_scene({std::move(contents.value().world), std::move(contents.value().names), std::move(footprint)}),
          "a scene");
    }
    case Record::kReset: return applied(w.reset(), "a reset");
    case Record::kMarkResetPoint: w.mark_reset_point(); return ok_status();
    case Record::CHANGE_NOT_SET: break;
  }
  return bad("a record with no change");
}

Result<Replayed> replay(const Dir& dir, const Limits& base, std::optional<std::uint64_t> to_tick, const StopReplay& stop) {
  std::vector<std::uint64_t> checkpoints, journals;
  for (const std::string& file : dir.list()) {
    if (auto g = checkpoint_generation(file)) checkpoints.push_back(*g);
    if (auto g = journal_generation(file)) journals.push_back(*g);
  }
  Replayed out{.state = WorldHost::State{.world = HostedWorld(World::create().value())}};
  // The newest checkpoint that reads whole (and is not after to_tick).
  std::optional<Start> start;
  bool later = false;  // a good checkpoint after to_tick
  for (auto g = checkpoints.rbegin(); g != checkpoints.rend() && !start; ++g) {
    Result<Start> read = read_checkpoint(dir, checkpoint_name(*g), base);
    if (!read) {
      out.warnings.push_back(read.error().message + "; trying an older checkpoint");
      out.unused.push_back(checkpoint_name(*g));
      continue;
    }
    if (to_tick && read.value().checkpoint.tick() > *to_tick) {
      later = true;
      continue;
    }
    start = std::move(read.value());
  }
  if (!start) {
    if (later)
      return Error{ErrorCode::failed_precondition,
                   "the recording in " + dir.path() + " starts after tick " + std::to_string(*to_tick)};
    return Error{ErrorCode::failed_precondition, "no checkpoint in " + dir.path() + " reads whole" +
                                                     (out.warnings.empty() ? "" : ": " + out.warnings.back())};
  }
  out.name = start->checkpoint.name();
  out.state = std::move(start->state);
  out.generation = start->checkpoint.generation();
  out.journal_bytes = 0;
  bool reached = false;  // to_tick: a record after it was seen
  bool stopped = false;  // a damaged record or a failed change ended the replay
  for (std::uint64_t g = out.generation;; ++g) {
    if (std::find(journals.begin(), journals.end(), g) == journals.end()) break;
    const std::string file = journal_name(g);
    if (stopped || reached) {
      out.unused.push_back(file);
      continue;
    }
    // Where one journal ends and the next begins, the world took a
    // checkpoint, clearing its caches (even if the checkpoint is lost).
    if (g != out.generation) out.state.world.clear_caches();
    out.generation = g;
    out.journal_bytes = 0;
    Result<std::string> bytes = dir.read(file);
    if (!bytes) {
      out.warnings.push_back(bytes.error().message);
      stopped = true;
      continue;
    }
    FrameReader reader(bytes.value(), kJournalMagic);
    std::string_view payload;
    FrameReader::Next next;
    std::uint64_t good = reader.good_bytes();
    while ((next = reader.next(payload)) == FrameReader::Next::record) {
      Record record;
      if (!record.ParseFromString(std::string(payload))) {
        out.warnings.push_back(file + ": a record that does not parse after byte " + std::to_string(good));
        stopped = true;
        break;
      }
      if (to_tick && record.tick() > *to_tick) {
        reached = true;
        break;
      }
      if (Status ok = apply(record, out.state, stop); !ok) {
        if (stop && stop()) return stopped_at(out.state);
        out.warnings.push_back(file + ": " + ok.error().message + " (after byte " + std::to_string(good) + ")");
        stopped = true;
        break;
      }
      good = reader.good_bytes();
    }
    out.journal_bytes = stopped || reached ? good : reader.good_bytes();
    if (next == FrameReader::Next::damaged) {
      out.warnings.push_back(file + ": " + reader.damage());
      stopped = true;
    }
  }
  if (to_tick) {
    if (!reached && out.state.tick < *to_tick)
      return Error{ErrorCode::failed_precondition, "the recording in " + dir.path() + " ends at tick " +
                                                       std::to_string(out.state.tick) + ", before tick " +
                                                       std::to_string(*to_tick)};
    if (!step_to(*to_tick, out.state, stop)) return stopped_at(out.state);
  }
  out.state.world.set_limits(with_counts(out.state.world.limits(), base));
  return out;
}

}  // namespace linkage::server::durable
