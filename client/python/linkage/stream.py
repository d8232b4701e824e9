"""State streams: `Snapshot`s in plain Python, the `Stream` iterator, and a
`World` mirror that a stream keeps up to date."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional, Tuple

import grpc

from .arrays import SnapshotArrays, snapshot_arrays
from .convert import Id, ids, plain
from .v1 import snapshot_pb2

__all__ = ["Snapshot", "Changes", "ConstraintRows", "Contact", "ContactEvent", "Stream", "World"]


class ConstraintRows(NamedTuple):
    """One constraint's rows in a snapshot: λ and the error C per row."""

    id: Id
    lambdas: Tuple[float, ...]
    errors: Tuple[float, ...]


class Contact(NamedTuple):
    """A contact point of the frame's tick: its bodies, where it is and its
    normal (from a to b; `dimension` floats each), the separation (m, < 0:
    overlapping) and the impulses along the normal and across it (N·s)."""

    a: Id
    b: Id
    point: Tuple[float, ...]
    normal: Tuple[float, ...]
    separation: float
    normal_impulse: float
    tangent_impulse: float


class ContactEvent(NamedTuple):
    """Two bodies (the lower id first) that began (`begin`) or stopped
    touching after the world's tick `tick`."""

    begin: bool
    tick: int
    a: Id
    b: Id


class Changes:
    """Topology changes since the previous snapshot of the same stream.

    With `full` set the lists hold the whole topology (the first snapshot, or
    after falling behind) and replace what the reader knew. Otherwise each
    object is in at most one list of its kind: added, updated (a new
    definition or name, by any client), or removed. Bodies, constraints and
    springs come as dicts {"id": Id, "def": {...}, ...}.
    `settings` is the world's settings dict when they changed (and on a full
    frame), else None. False when there is nothing.
    """

    __slots__ = ("full", "added_bodies", "updated_bodies", "removed_bodies", "added_constraints",
                 "updated_constraints", "removed_constraints", "added_springs", "updated_springs",
                 "removed_springs", "settings")

    def __init__(self, message: Optional[snapshot_pb2.TopologyChanges] = None):
        message = message if message is not None else snapshot_pb2.TopologyChanges()
        self.full = message.full
        self.added_bodies = [plain(b) for b in message.added_bodies]
        self.updated_bodies = [plain(b) for b in message.updated_bodies]
        self.removed_bodies = ids(message.removed_bodies)
        self.added_constraints = [plain(c) for c in message.added_constraints]
        self.updated_constraints = [plain(c) for c in message.updated_constraints]
        self.removed_constraints = ids(message.removed_constraints)
        self.added_springs = [plain(f) for f in message.added_springs]
        self.updated_springs = [plain(f) for f in message.updated_springs]
        self.removed_springs = ids(message.removed_springs)
        self.settings = plain(message.settings) if message.HasField("settings") else None

    def __bool__(self) -> bool:
        return self.full or any(getattr(self, name) for name in self.__slots__[1:])

    def __repr__(self) -> str:
        parts = [f"{name}={len(getattr(self, name))}" for name in self.__slots__[1:-1] if getattr(self, name)]
        if self.settings is not None:
            parts.append("settings")
        return f"Changes(full={self.full}{''.join(', ' + p for p in parts)})"


class Snapshot:
    """One frame of a world's state.

    `ids[i]` is body i's Id; `positions[i]` and `velocities[i]` are tuples of
    `dimension` floats; `angles[i]`, `angular_velocities[i]` floats (0 for
    particles). `constraints` (if asked for) is a list of ConstraintRows;
    `diagnostics` (if asked for) a dict such as {"max_error": .., "kinetic_energy":
    .., "gravitational_energy": .., "spring_energy": .., ...}, else None.
    `changes` are the topology changes since this stream's previous frame.
    With contacts asked for, `contacts` lists the tick's contact points
    (Contact) and `contact_events` every pair that began or ended touching
    since this stream's previous frame (ContactEvent, in order, none lost
    however many frames the stream skipped); with `contact_events_full` the
    events are a begin for every pair touching now and replace what the reader
    knew (the first frame). `contacts_truncated`: some points were left out to
    keep the frame within the world's message limit (the events are whole).
    `arrays()` gives the same state as numpy arrays; `message` is the
    linkage.v1.Snapshot it was made from.
    """

    __slots__ = ("world", "tick", "time", "topology_version", "dimension", "paused", "ids", "positions",
                 "velocities", "angles", "angular_velocities", "constraints", "diagnostics", "changes", "contacts",
                 "contact_events", "contact_events_full", "contacts_truncated", "message")

    def __init__(self, message: snapshot_pb2.Snapshot):
        m = message
        self.message = message
        d = max(m.dimension, 1)
        self.world = m.world
        self.tick = m.tick
        self.time = m.time
        self.topology_version = m.topology_version
        self.dimension = m.dimension
        self.paused = m.paused
        self.ids: list[Id] = [Id(i, g) for i, g in zip(m.body_index, m.body_generation)]
        self.positions: list[Tuple[float, ...]] = [tuple(m.position[k:k + d]) for k in range(0, len(m.position), d)]
        self.velocities: list[Tuple[float, ...]] = [tuple(m.velocity[k:k + d])
                                                    for k in range(0, len(m.velocity), d)]
        self.angles: list[float] = list(m.angle)
        self.angular_velocities: list[float] = list(m.angular_velocity)
        self.constraints: list[ConstraintRows] = []
        row = 0
        lambdas = getattr(m, "lambda")  # a Python keyword
        for i, g, n in zip(m.constraint_index, m.constraint_generation, m.constraint_rows):
            self.constraints.append(ConstraintRows(Id(i, g), tuple(lambdas[row:row + n]),
                                                   tuple(m.error[row:row + n])))
            row += n
        self.diagnostics: Optional[dict[str, Any]] = plain(m.diagnostics) if m.HasField("diagnostics") else None
        self.changes = Changes(m.changes if m.HasField("changes") else None)
        self.contacts: list[Contact] = [
            Contact(Id(ai, ag), Id(bi, bg), tuple(m.contact_point[k * d:k * d + d]),
                    tuple(m.contact_normal[k * d:k * d + d]), s, n, t)
            for k, (ai, ag, bi, bg, s, n, t) in enumerate(zip(
                m.contact_a_index, m.contact_a_generation, m.contact_b_index, m.contact_b_generation,
                m.contact_separation, m.contact_normal_impulse, m.contact_tangent_impulse))]
        self.contact_events: list[ContactEvent] = [
            ContactEvent(e.kind == snapshot_pb2.CONTACT_EVENT_KIND_BEGIN, e.tick, Id(e.a.index, e.a.generation),
                         Id(e.b.index, e.b.generation)) for e in m.contact_events]
        self.contact_events_full: bool = m.contact_events_full
        self.contacts_truncated: bool = m.contacts_truncated

    @property
    def energy(self) -> Optional[float]:
        """Kinetic + gravitational + spring energy (J), when diagnostics were asked for."""
        d = self.diagnostics
        return None if d is None else d["kinetic_energy"] + d["gravitational_energy"] + d["spring_energy"]

    def position(self, body: Id) -> Tuple[float, ...]:
        """The position of one body (by Id); ValueError if the frame has no such body."""
        return self.positions[self.ids.index(body)]

    def arrays(self) -> SnapshotArrays:
        """The frame's state as numpy arrays (ImportError naming the extra without numpy)."""
        return snapshot_arrays(self.message)

    def __repr__(self) -> str:
        return (f"Snapshot(world={self.world!r}, tick={self.tick}, time={self.time:.4f}, bodies={len(self.ids)}, "
                f"topology_version={self.topology_version}, changes={self.changes!r})")


class Stream:
    """An iterator of Snapshots over one StreamState call; close() ends it.

    Also a context manager. Iterating raises LinkageError when the server
    ends the stream (UNAVAILABLE on shutdown, NOT_FOUND for a missing world)
    and stops quietly once closed.
    """

    def __init__(self, call: Any, to_error: Callable[[grpc.RpcError], Exception]):
        """`call`: the StreamState call (an iterator of linkage.v1.Snapshot that can be cancelled)."""
        self._call = call
        self._to_error = to_error
        self._closed = False

    def __iter__(self) -> Iterator[Snapshot]:
        return self

    def __next__(self) -> Snapshot:
        if self._closed:
            raise StopIteration
        try:
            return Snapshot(next(self._call))
        except StopIteration:
            self._closed = True
            raise
        except grpc.RpcError as error:
            if self._closed or (error.code() == grpc.StatusCode.CANCELLED and self._call.cancelled()):
                raise StopIteration from None
            self._closed = True
            raise self._to_error(error) from None

    def close(self) -> None:
        """Ends the stream (cancels the call); idempotent."""
        if not self._closed:
            self._closed = True
            self._call.cancel()

    @property
    def closed(self) -> bool:
        """True once the stream ended or was closed."""
        return self._closed

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass


class World:
    """A client-side mirror of one world, kept in sync by applying snapshots.

    ::

        mirror = linkage.World()
        for snapshot in mirror.follow(client.stream("lab", rate_hz=30)):
            print(mirror.bodies[mirror.names["bob"]]["def"]["mass"], mirror.positions[mirror.names["bob"]])

    `bodies`, `constraints` and `springs` map Id -> the dict the server sent
    when it was added or last updated (by any client: a rename, a new mass,
    shape, length or stiffness); `positions`, `velocities`, `angles`,
    `angular_velocities` map body Id -> the latest state; `constraint_rows`
    maps constraint Id -> ConstraintRows (when the stream sends them);
    `diagnostics` is the latest diagnostics dict; `settings` the world's
    settings dict as the stream last sent them.
    """

    def __init__(self) -> None:
        self.name: Optional[str] = None
        self.tick = 0
        self.time = 0.0
        self.dimension = 0
        self.paused = False
        self.topology_version = 0
        self.bodies: dict[Id, dict[str, Any]] = {}
        self.constraints: dict[Id, dict[str, Any]] = {}
        self.springs: dict[Id, dict[str, Any]] = {}
        self.positions: dict[Id, Tuple[float, ...]] = {}
        self.velocities: dict[Id, Tuple[float, ...]] = {}
        self.angles: dict[Id, float] = {}
        self.angular_velocities: dict[Id, float] = {}
        self.constraint_rows: dict[Id, ConstraintRows] = {}
        self.diagnostics: Optional[dict[str, Any]] = None
        self.settings: Optional[dict[str, Any]] = None

    @property
    def names(self) -> dict[str, Id]:
        """Body names -> Ids (named bodies only)."""
        return {b["def"]["name"]: i for i, b in self.bodies.items() if b.get("def", {}).get("name")}

    def apply(self, snapshot: Snapshot) -> "World":
        """Applies a snapshot's topology changes, then its state."""
        c = snapshot.changes
        if c.full:
            self.bodies.clear()
            self.constraints.clear()
            self.springs.clear()
        for table, removed in ((self.bodies, c.removed_bodies), (self.constraints, c.removed_constraints),
                               (self.springs, c.removed_springs)):
            for i in removed:
                table.pop(i, None)
        for table, added in ((self.bodies, c.added_bodies), (self.constraints, c.added_constraints),
                             (self.springs, c.added_springs)):
            for item in added:
                table[item["id"]] = item
        # An update replaces the whole definition of an object already known.
        for table, updated in ((self.bodies, c.updated_bodies), (self.constraints, c.updated_constraints),
                               (self.springs, c.updated_springs)):
            for item in updated:
                if item["id"] in table:
                    table[item["id"]] = item
        self.name = snapshot.world
        self.tick, self.time = snapshot.tick, snapshot.time
        self.dimension, self.paused = snapshot.dimension, snapshot.paused
        self.topology_version = snapshot.topology_version
        self.positions = dict(zip(snapshot.ids, snapshot.positions))
        self.velocities = dict(zip(snapshot.ids, snapshot.velocities))
        self.angles = dict(zip(snapshot.ids, snapshot.angles))
        self.angular_velocities = dict(zip(snapshot.ids, snapshot.angular_velocities))
        if snapshot.constraints:
            self.constraint_rows = {rows.id: rows for rows in snapshot.constraints}
        else:
            self.constraint_rows = {i: r for i, r in self.constraint_rows.items() if i in self.constraints}
        if snapshot.diagnostics is not None:
            self.diagnostics = snapshot.diagnostics
        if c.settings is not None:
            self.settings = c.settings
        return self

    def follow(self, snapshots: Iterable[Snapshot]) -> Iterator[Snapshot]:
        """Applies each snapshot of an iterable (a Stream) as it passes, and yields it."""
        for snapshot in snapshots:
            self.apply(snapshot)
            yield snapshot

    def __repr__(self) -> str:
        return (f"World(name={self.name!r}, tick={self.tick}, bodies={len(self.bodies)}, "
                f"constraints={len(self.constraints)}, springs={len(self.springs)})")
