"""`linkage.Client`: every RPC of linkage.v1, in plain Python."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterable, Mapping, Optional, Tuple, TypeVar, Union

import grpc
from google.protobuf import field_mask_pb2, json_format
from google.protobuf.message import Message

from . import convert
from .channel import Pem, open_channel
from .convert import BodyLike, Fields, Id, IdLike, Vector, make, plain
from .stream import Stream
from .v1 import body_pb2, constraint_pb2, force_pb2, scene_pb2, service_pb2, service_pb2_grpc, world_pb2
from .v1.types_pb2 import BodyRef as _BodyRef

__all__ = ["Client", "Batch", "BatchResult", "LinkageError", "CONSTRAINT_TYPES", "SceneLike"]

R = TypeVar("R", bound=Message)

SceneLike = Union[Mapping[str, Any], str, "os.PathLike[str]", scene_pb2.Scene]
"""A scene: a dict in the scene files' form, JSON text, a .json file's path, or a linkage.v1.Scene."""

# The `type` oneof of ConstraintDef: "distance", "rope", "pin", "point_on_line", ...
CONSTRAINT_TYPES = tuple(f.name for f in constraint_pb2.ConstraintDef.DESCRIPTOR.oneofs_by_name["type"].fields)


class LinkageError(Exception):
    """An error from the server (or the channel): a gRPC status and its message.

    `code` is the name of the grpc.StatusCode ("INVALID_ARGUMENT", "NOT_FOUND",
    "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "UNAVAILABLE", ...);
    `status` is the grpc.StatusCode itself; `message` starts with the field
    at fault, e.g. "constraint.distance.length: must be > 0 ...".
    """

    def __init__(self, code: str, message: str, status: Optional[grpc.StatusCode] = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status if status is not None else getattr(grpc.StatusCode, code, None)

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "LinkageError":
        """The LinkageError for a failed call (its status code and details)."""
        status = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(status.name, details or "", status)


def _call(method: Callable[..., R], request: Message, timeout: Optional[float]) -> R:
    try:
        return method(request, timeout=timeout)
    except grpc.RpcError as error:
        raise LinkageError.from_rpc_error(error) from None


Softness = Union[float, Mapping[str, float], None]
"""A soft constraint's spring: a frequency (Hz), or {"frequency": .., "damping_ratio": ..}; None: rigid."""


def _body_def(value: Fields = None, **fields: Any) -> body_pb2.BodyDef:
    return make(body_pb2.BodyDef, value, "body", **fields)


def _constraint_def(kind: Union[str, Fields] = None, name: Optional[str] = None, softness: Softness = None,
                    **fields: Any) -> constraint_pb2.ConstraintDef:
    """A ConstraintDef from ("distance", b="bob", length=1.0, ...) or from a dict/message."""
    if kind is None or not isinstance(kind, str):
        if fields:
            raise TypeError("give the constraint's type first, e.g. add_constraint(world, 'distance', b='bob')")
        definition = make(constraint_pb2.ConstraintDef, kind, "constraint")
    else:
        key = _constraint_type(kind)
        definition = make(constraint_pb2.ConstraintDef, {key: fields}, "constraint")
    if name is not None:
        definition.name = name
    if softness is not None:
        convert.fill(definition.softness, {"frequency": softness} if isinstance(softness, (int, float)) else softness,
                     "constraint.softness")
    return definition


def _constraint_type(kind: str) -> str:
    snake = "".join("_" + c.lower() if c.isupper() else c for c in kind).lstrip("_").replace("-", "_")
    if snake not in CONSTRAINT_TYPES:
        raise ValueError(f"constraint type {kind!r}: expected one of {', '.join(CONSTRAINT_TYPES)}")
    return snake


def _force_def(kind: str, fields: Mapping[str, Any]) -> force_pb2.ForceDef:
    return make(force_pb2.ForceDef, {kind: fields}, "force")


def _mask(paths: Iterable[str]) -> field_mask_pb2.FieldMask:
    """An update mask: the server changes these fields only, the rest keep their values."""
    return field_mask_pb2.FieldMask(paths=list(paths))


def _scene(scene: SceneLike) -> scene_pb2.Scene:
    """A Scene from a message, a dict, JSON text or a path to a .json file."""
    if isinstance(scene, scene_pb2.Scene):
        return scene
    if isinstance(scene, Mapping):
        # The scene files' own form: full enum names and {"x": ..} vectors go
        # through json_format; the wrapper's shorter forms through convert.
        try:
            return json_format.ParseDict(scene, scene_pb2.Scene())
        except json_format.ParseError:
            return make(scene_pb2.Scene, scene, "scene")
    if isinstance(scene, (str, os.PathLike)):
        text = str(scene)
        if not text.lstrip().startswith("{"):
            with open(scene, encoding="utf-8") as file:
                text = file.read()
        try:
            return json_format.Parse(text, scene_pb2.Scene())
        except json_format.ParseError as error:
            raise ValueError(f"scene: {error}") from None
    raise TypeError(f"scene: expected a dict, JSON text, a path or a linkage.v1.Scene, got {type(scene).__name__}")


def _settings(settings: Fields, fields: Mapping[str, Any]) -> world_pb2.WorldSettings:
    return make(world_pb2.WorldSettings, settings, "settings", **fields)


class BatchResult:
    """What one command of a batch did: the id it created, or what it removed."""

    __slots__ = ("created", "removed_constraints", "removed_forces")

    def __init__(self, message: service_pb2.CommandResult):
        self.created = Id(message.created.index, message.created.generation) if message.created.generation else None
        self.removed_constraints = convert.ids(message.removed_constraints)
        self.removed_forces = convert.ids(message.removed_forces)

    def __repr__(self) -> str:
        return (f"BatchResult(created={self.created}, removed_constraints={self.removed_constraints}, "
                f"removed_forces={self.removed_forces})")


class Batch:
    """Commands collected and applied atomically in one tick (ApplyBatch).

    As a context manager it applies on a clean exit and drops everything if
    the block raises::

        with client.batch("w") as batch:
            batch.create_body(name="bob", position=(1, 0), mass=1)
            batch.add_constraint("distance", b="bob")
        batch.results[0].created   # the bob's Id

    Each method returns the command's index in `results`. Bodies created
    earlier in a batch can be named by later commands.
    """

    def __init__(self, client: "Client", world: str):
        self._client = client
        self.world = world
        self.commands: list[service_pb2.Command] = []
        self.results: list[BatchResult] = []
        self.tick: int | None = None

    def add(self, command: Fields) -> int:
        """Appends a Command (message, or a dict such as {"remove_body": "bob"})."""
        self.commands.append(make(service_pb2.Command, command, f"commands[{len(self.commands)}]"))
        return len(self.commands) - 1

    def create_body(self, definition: Fields = None, **fields: Any) -> int:
        """Creates a body, as Client.create_body."""
        return self.add({"create_body": _body_def(definition, **fields)})

    def update_body(self, body: BodyLike, definition: Fields = None, **fields: Any) -> int:
        """With keywords only, those fields (an update mask); with a `definition`, the whole of it."""
        command = service_pb2.UpdateBodyRequest(body=make(_BodyRef, body, "body"), **{"def": _body_def(definition, **fields)})
        if definition is None:
            command.update_mask.CopyFrom(_mask(fields))
        return self.add(service_pb2.Command(update_body=command))

    def remove_body(self, body: BodyLike) -> int:
        """Removes a body with its constraints and forces."""
        return self.add({"remove_body": body})

    def add_constraint(self, kind: Union[str, Fields] = None, *, name: Optional[str] = None,
                       softness: Softness = None, **fields: Any) -> int:
        """Adds a constraint, as Client.add_constraint."""
        return self.add({"add_constraint": _constraint_def(kind, name, softness, **fields)})

    def update_constraint(self, id: IdLike, kind: Union[str, Fields] = None, *, name: Optional[str] = None,
                          softness: Softness = None, **fields: Any) -> int:
        """A whole new definition, bodies included, as for add_constraint (a batch reads nothing first)."""
        return self.add({"update_constraint": {"id": convert.id_message(id),
                                               "constraint": _constraint_def(kind, name, softness, **fields)}})

    def remove_constraint(self, id: IdLike) -> int:
        """Removes a constraint."""
        return self.add({"remove_constraint": convert.id_message(id)})

    def add_spring(self, a: BodyLike = None, b: BodyLike = None, **fields: Any) -> int:
        """Adds a spring-damper, as Client.add_spring."""
        return self.add({"add_force": _force_def("spring", dict(fields, a=a, b=b))})

    def add_force(self, body: BodyLike, force: Vector = (0, 0, 0), **fields: Any) -> int:
        """Applies a force, as Client.add_force."""
        return self.add({"add_force": _force_def("applied", dict(fields, body=body, force=force))})

    def remove_force(self, id: IdLike) -> int:
        """Removes a force or spring."""
        return self.add({"remove_force": convert.id_message(id)})

    def apply_impulse(self, body: BodyLike, impulse: Vector = (0, 0, 0), **fields: Any) -> int:
        """Applies an impulse, as Client.apply_impulse."""
        return self.add({"apply_impulse": dict(fields, body=body, impulse=impulse)})

    def apply(self) -> list[BatchResult]:
        """Sends the commands; raises LinkageError (and changes nothing) if one is refused."""
        response = _call(self._client._worlds.ApplyBatch,
                         service_pb2.ApplyBatchRequest(world=self.world, commands=self.commands), self._client.timeout)
        self.results = [BatchResult(r) for r in response.results]
        self.tick = response.tick
        return self.results

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, kind: Optional[type], value: Optional[BaseException], traceback: object) -> None:
        if kind is None:
            self.apply()


class Client:
    """A connection to linkaged.

    ::

        with linkage.Client("127.0.0.1:50051") as client:
            client.create_world("lab", paused=True)
            bob = client.create_body("lab", name="bob", position=(1, 0), mass=1)
            client.add_constraint("lab", "distance", b=bob)   # a=None: the world
            client.step("lab", 60)
            print(client.get_body("lab", "bob")["def"]["position"])

    Every method raises `LinkageError` when the server refuses a call (and
    ValueError/TypeError for arguments it cannot even send). Worlds are named
    by their name, bodies by name or Id, constraints and forces by Id.
    Results are plain Python: dicts in the proto's form with snake_case keys,
    vectors as 3-tuples, ids as `linkage.Id`, enums as short names.

    `timeout` (seconds, None for none) applies to each unary call. `token`
    is sent with every call and stream as "authorization: Bearer <token>"
    (a server started with --tokens wants one). TLS is on with `tls=True`
    (the system's CAs) or `root_certificates` (the CA that signed the
    server's certificate); `certificate_chain` and `private_key` are a client
    certificate, for a server that asks for one (mutual TLS); `server_name`
    is the name the server's certificate must carry when it is not the
    target's host. PEM values are bytes, text, or a file's path.
    `credentials` (grpc.ChannelCredentials of your own) instead of the TLS
    keywords; `options` are extra gRPC channel options.
    """

    def __init__(self, target: str = "127.0.0.1:50051", timeout: Optional[float] = 10.0, *,
                 token: Optional[str] = None, tls: bool = False, root_certificates: Optional[Pem] = None,
                 certificate_chain: Optional[Pem] = None, private_key: Optional[Pem] = None,
                 server_name: Optional[str] = None, credentials: Optional[grpc.ChannelCredentials] = None,
                 options: Iterable[Tuple[str, Any]] = ()):
        self.target = target
        self.timeout = timeout
        self.channel = open_channel(target, token=token, tls=tls, root_certificates=root_certificates,
                                    certificate_chain=certificate_chain, private_key=private_key,
                                    server_name=server_name, credentials=credentials, options=options)
        self._worlds = service_pb2_grpc.WorldServiceStub(self.channel)
        self._bodies = service_pb2_grpc.BodyServiceStub(self.channel)
        self._constraints = service_pb2_grpc.ConstraintServiceStub(self.channel)
        self._forces = service_pb2_grpc.ForceServiceStub(self.channel)

    # --- the connection ---

    def wait_ready(self, timeout: float = 10.0) -> "Client":
        """Blocks until the channel is connected; LinkageError("UNAVAILABLE") after `timeout` s."""
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise LinkageError("UNAVAILABLE", f"no server at {self.target} after {timeout} s") from None
        return self

    def close(self) -> None:
        """Closes the channel (and with it any open stream)."""
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _world(self, method: Callable[..., R], request_type: Callable[..., Message], world: str,
               **fields: Any) -> R:
        return _call(method, request_type(world=world, **fields), self.timeout)

    # --- worlds ---

    def create_world(self, name: str, settings: Fields = None, *, paused: bool = False, limits: Fields = None,
                     **setting_fields: Any) -> dict[str, Any]:
        """Creates an empty world; settings as a dict or keywords (tick_rate=120, integrator="rk4", ...);
        limits as a dict ({"max_bodies": .., ...}). Returns the world as get_world does."""
        request = service_pb2.CreateWorldRequest(name=name, paused=paused, settings=_settings(settings, setting_fields))
        if limits is not None:
            convert.fill(request.limits, limits, "limits")
        return plain(_call(self._worlds.CreateWorld, request, self.timeout).world)

    def list_worlds(self) -> list[dict[str, Any]]:
        """Every world: name, tick, time, paused, counts, settings (as get_world)."""
        return [plain(w) for w in _call(self._worlds.ListWorlds, service_pb2.ListWorldsRequest(), self.timeout).worlds]

    def get_world(self, world: str) -> dict[str, Any]:
        """One world: {"name", "tick", "time", "paused", "body_count", "constraint_count", "settings", ...}."""
        return plain(self._world(self._worlds.GetWorld, service_pb2.GetWorldRequest, world).world)

    def update_world(self, world: str, settings: Fields = None, **setting_fields: Any) -> dict[str, Any]:
        """Changes settings live; what is not given keeps its value (keywords go as an
        update mask, so a zero or false given by keyword is set too)."""
        extra = {"update_mask": _mask(setting_fields)} if settings is None and setting_fields else {}
        return plain(self._world(self._worlds.UpdateWorld, service_pb2.UpdateWorldRequest, world,
                                 settings=_settings(settings, setting_fields), **extra).world)

    def delete_world(self, world: str) -> None:
        """Deletes a world and everything in it (its streams end with UNAVAILABLE)."""
        self._world(self._worlds.DeleteWorld, service_pb2.DeleteWorldRequest, world)

    def pause(self, world: str) -> dict[str, Any]:
        """Stops a world's clock; returns the world."""
        return plain(self._world(self._worlds.Pause, service_pb2.PauseRequest, world).world)

    def resume(self, world: str) -> dict[str, Any]:
        """Starts a paused world's clock again; returns the world."""
        return plain(self._world(self._worlds.Resume, service_pb2.ResumeRequest, world).world)

    def step(self, world: str, ticks: int = 1) -> dict[str, Any]:
        """Steps a paused world by `ticks` ticks; answers when they are done."""
        return plain(self._world(self._worlds.Step, service_pb2.StepRequest, world, ticks=ticks).world)

    def reset(self, world: str) -> dict[str, Any]:
        """Puts a world back to its reset point (its last loaded scene, or empty); returns the world."""
        return plain(self._world(self._worlds.Reset, service_pb2.ResetRequest, world).world)

    def load_scene(self, world: str, scene: SceneLike) -> dict[str, Any]:
        """Replaces the world by a scene: a dict, JSON text, a path to a .json file or a Scene."""
        return plain(self._world(self._worlds.LoadScene, service_pb2.LoadSceneRequest, world,
                                 scene=_scene(scene)).world)

    def save_scene(self, world: str, path: Union[str, "os.PathLike[str]", None] = None) -> dict[str, Any]:
        """The world as a scene dict in the scene files' JSON form; also written to `path` if given."""
        scene = self._world(self._worlds.SaveScene, service_pb2.SaveSceneRequest, world).scene
        as_dict = json_format.MessageToDict(scene, preserving_proto_field_name=True)
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                json.dump(as_dict, file, indent=2)
                file.write("\n")
        return as_dict

    def fork_world(self, world: str, name: str, tick: Optional[int] = None) -> dict[str, Any]:
        """Copies a world into a new paused one named `name`: as it is now, or (on a server with
        --data-dir) as it was at `tick`. Returns the new world."""
        request = service_pb2.ForkWorldRequest(world=world, name=name)
        if tick is not None:
            request.tick = tick
        return plain(_call(self._worlds.ForkWorld, request, self.timeout).world)

    def batch(self, world: str, commands: Optional[Iterable[Fields]] = None) -> Batch:
        """A Batch to fill (a context manager); with `commands` it is applied at once."""
        batch = Batch(self, world)
        if commands is not None:
            for command in commands:
                batch.add(command)
            batch.apply()
        return batch

    def apply_batch(self, world: str, commands: Iterable[Fields]) -> list[BatchResult]:
        """Applies Command dicts/messages atomically, e.g. [{"create_body": {...}}, {"remove_body": "bob"}]."""
        return self.batch(world, commands).results

    def stream(self, world: str, rate_hz: float = 0.0, constraints: bool = False, diagnostics: bool = False,
               contacts: bool = False) -> Stream:
        """An iterator of `linkage.Snapshot`s at up to `rate_hz` (0: every tick); with
        `contacts`, each carries the tick's contact points and the pairs that began or
        ended touching since the previous one.

        Close it (or use it as a context manager) to end the stream; iterating
        raises LinkageError if the server ends it (e.g. UNAVAILABLE on shutdown).
        """
        request = service_pb2.StreamStateRequest(world=world, rate_hz=rate_hz, constraints=constraints,
                                                 diagnostics=diagnostics, contacts=contacts)
        return Stream(self._worlds.StreamState(request), LinkageError.from_rpc_error)

    # --- bodies ---

    def create_body(self, world: str, definition: Fields = None, **fields: Any) -> Id:
        """Creates a body from a BodyDef dict or keywords: name, kind ("particle"/"rigid"),
        motion ("dynamic"/"fixed"/"kinematic"), position=(x, y), angle, velocity, mass, shape={"disk": {"radius": r}}, ..."""
        response = self._world(self._bodies.CreateBody, service_pb2.CreateBodyRequest, world,
                               body=_body_def(definition, **fields))
        return Id(response.id.index, response.id.generation)

    def create_bodies(self, world: str, definitions: Iterable[Fields]) -> list[Id]:
        """Creates several bodies atomically."""
        bodies = [make(body_pb2.BodyDef, d, f"bodies[{i}]") for i, d in enumerate(definitions)]
        return convert.ids(self._world(self._bodies.CreateBodies, service_pb2.CreateBodiesRequest, world,
                                       bodies=bodies).ids)

    def get_body(self, world: str, body: BodyLike) -> dict[str, Any]:
        """{"id": Id, "def": {...with the current position, velocity...}}."""
        return plain(self._world(self._bodies.GetBody, service_pb2.GetBodyRequest, world,
                                 body=make(_BodyRef, body, "body")).body)

    def list_bodies(self, world: str) -> list[dict[str, Any]]:
        """Every body of a world, as get_body."""
        return [plain(b) for b in self._world(self._bodies.ListBodies, service_pb2.ListBodiesRequest, world).bodies]

    def update_body(self, world: str, body: BodyLike, definition: Fields = None, **fields: Any) -> dict[str, Any]:
        """Changes a body's state, mass, shape or motion (its kind stays).

        With keywords only (update_body(w, "bob", mass=2)) only the fields given
        change (they go as an update mask; nothing is read first): the rest,
        state included, keep the body's values as they are when the update
        runs, so a running body's mass changes without its position or
        velocity going back anywhere. With a `definition` (a BodyDef dict or
        message) that replaces the whole definition."""
        ref = make(_BodyRef, body, "body")
        extra = {"update_mask": _mask(fields)} if definition is None else {}
        return plain(self._world(self._bodies.UpdateBody, service_pb2.UpdateBodyRequest, world, body=ref,
                                 **{"def": _body_def(definition, **fields)}, **extra).body)

    def remove_body(self, world: str, body: BodyLike) -> dict[str, list[Id]]:
        """Removes a body with its constraints and forces: {"removed_constraints": [Id], "removed_forces": [Id]}."""
        response = self._world(self._bodies.RemoveBody, service_pb2.RemoveBodyRequest, world,
                               body=make(_BodyRef, body, "body"))
        return {"removed_constraints": convert.ids(response.removed_constraints),
                "removed_forces": convert.ids(response.removed_forces)}

    # --- constraints ---

    def add_constraint(self, world: str, kind: Union[str, Fields] = None, *, name: Optional[str] = None,
                       softness: Softness = None, **fields: Any) -> Id:
        """Adds a constraint: add_constraint(w, "distance", a="pivot", b="bob", length=1.0), or
        add_constraint(w, {"pin": {"b": "bob", "anchor_a": (0, 1)}, "name": "hinge"}).

        Types: distance, rope, pin, point_on_line, point_on_circle, point_on_plane, weld,
        relative_angle, gear, rack_and_pinion, motor, trajectory. Bodies by name or Id; a
        missing `a` is the world. softness: a frequency in Hz or {"frequency": .., "damping_ratio": ..}.
        """
        response = self._world(self._constraints.AddConstraint, service_pb2.AddConstraintRequest, world,
                               constraint=_constraint_def(kind, name, softness, **fields))
        return Id(response.id.index, response.id.generation)

    def add_constraints(self, world: str, definitions: Iterable[Fields]) -> list[Id]:
        """Adds several ConstraintDef dicts atomically."""
        constraints = [make(constraint_pb2.ConstraintDef, d, f"constraints[{i}]") for i, d in enumerate(definitions)]
        return convert.ids(self._world(self._constraints.AddConstraints, service_pb2.AddConstraintsRequest, world,
                                       constraints=constraints).ids)

    def get_constraint(self, world: str, id: IdLike) -> dict[str, Any]:
        """{"id", "def", "lambda", "error", "error_rate", "force_on_a", ...} after the last step."""
        return plain(self._world(self._constraints.GetConstraint, service_pb2.GetConstraintRequest, world,
                                 id=convert.id_message(id)).constraint)

    def list_constraints(self, world: str) -> list[dict[str, Any]]:
        """Every constraint of a world, as get_constraint."""
        return [plain(c) for c in self._world(self._constraints.ListConstraints, service_pb2.ListConstraintsRequest,
                                              world).constraints]

    def update_constraint(self, world: str, id: IdLike, definition: Union[str, Fields] = None, *,
                          name: Optional[str] = None, softness: Softness = None, **fields: Any) -> dict[str, Any]:
        """Changes parameters (length, speed, ratio, anchors, softness); type and bodies stay.

        With keywords (update_constraint(w, rod, "distance", length=1.5,
        softness=2.0)) only the fields given change (an update mask): the rest
        keep the constraint's values when the update runs. Without the type
        the constraint is read first, for its type alone. With a `definition`
        (a ConstraintDef dict or message) that replaces the whole definition."""
        cid = convert.id_message(id)
        if definition is None or isinstance(definition, str):
            kind = _constraint_type(definition) if definition else getattr(
                self._world(self._constraints.GetConstraint, service_pb2.GetConstraintRequest, world,
                            id=cid).constraint, "def").WhichOneof("type")
            new = constraint_pb2.ConstraintDef()
            convert.fill(getattr(new, kind), fields, f"constraint.{kind}")
            paths = [f"{kind}.{field}" for field in fields]
        else:
            new = make(constraint_pb2.ConstraintDef, definition, "constraint")
            paths = None
        if name is not None:
            new.name = name
        if softness is not None:
            convert.fill(new.softness, {"frequency": softness} if isinstance(softness, (int, float)) else softness,
                         "constraint.softness")
        extra = {}
        if paths is not None:
            paths += [p for p, given in (("name", name), ("softness", softness)) if given is not None]
            extra["update_mask"] = _mask(paths)
        return plain(self._world(self._constraints.UpdateConstraint, service_pb2.UpdateConstraintRequest, world,
                                 id=cid, constraint=new, **extra).constraint)

    def remove_constraint(self, world: str, id: IdLike) -> None:
        """Removes a constraint (its bodies stay)."""
        self._world(self._constraints.RemoveConstraint, service_pb2.RemoveConstraintRequest, world,
                    id=convert.id_message(id))

    # --- forces ---

    def add_spring(self, world: str, a: BodyLike = None, b: BodyLike = None, **fields: Any) -> Id:
        """A spring-damper from body a to body b, or to the world point anchor_b if b is None:
        stiffness (N/m), damping (N·s/m), rest_length (m; unset: the current distance), anchor_a, anchor_b."""
        return self._add_force(world, _force_def("spring", dict(fields, a=a, b=b)))

    def add_force(self, world: str, body: BodyLike, force: Vector = (0, 0, 0), **fields: Any) -> Id:
        """A force (N, world frame) on a body: point (body frame), torque, ticks (0: until removed)."""
        return self._add_force(world, _force_def("applied", dict(fields, body=body, force=force)))

    def _add_force(self, world: str, definition: force_pb2.ForceDef) -> Id:
        response = self._world(self._forces.AddForce, service_pb2.AddForceRequest, world, force=definition)
        return Id(response.id.index, response.id.generation)

    def update_force(self, world: str, id: IdLike, definition: Fields = None, **fields: Any) -> dict[str, Any]:
        """Changes a spring (stiffness, damping, rest_length, anchors; its bodies stay).

        With keywords (update_force(w, spring, stiffness=50)) only the fields
        given change (an update mask; nothing is read first); with a
        `definition` (a ForceDef dict or message) that replaces it whole."""
        fid = convert.id_message(id)
        extra = {}
        if definition is None:
            new = _force_def("spring", fields)
            extra["update_mask"] = _mask(f"spring.{field}" for field in fields)
        else:
            new = make(force_pb2.ForceDef, definition, "force")
        return plain(self._world(self._forces.UpdateForce, service_pb2.UpdateForceRequest, world, id=fid,
                                 force=new, **extra).force)

    def remove_force(self, world: str, id: IdLike) -> None:
        """Removes a force or spring."""
        self._world(self._forces.RemoveForce, service_pb2.RemoveForceRequest, world, id=convert.id_message(id))

    def list_forces(self, world: str) -> list[dict[str, Any]]:
        """Every force and spring of a world: {"id": Id, "def": {"spring": {...}} or {"applied": {...}}}."""
        return [plain(f) for f in self._world(self._forces.ListForces, service_pb2.ListForcesRequest, world).forces]

    def apply_impulse(self, world: str, body: BodyLike, impulse: Vector = (0, 0, 0), **fields: Any) -> None:
        """Changes a body's momentum before the next tick: impulse (N·s), point, angular_impulse."""
        self._world(self._forces.ApplyImpulse, service_pb2.ApplyImpulseRequest, world,
                    impulse=make(force_pb2.Impulse, dict(fields, body=body, impulse=impulse), "impulse"))

