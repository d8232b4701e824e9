"""Plain Python values <-> linkage.v1 messages.

The wrapper speaks the proto's JSON form with snake_case field names, as
the scene files do, made a little more Pythonic both ways:

* a ``Vec3`` is a tuple or list ``(x, y)`` or ``(x, y, z)`` (or a dict
  ``{"x": .., "y": ..}``); it comes back as a 3-tuple;
* an ``Id`` is ``linkage.Id(index, generation)`` (any 2-tuple goes in);
* a ``BodyRef`` is a body's name (str) or its ``Id``; ``None`` is the world;
* an enum value is its short name in any case (``"rigid"``, ``"rk4"``,
  ``"conjugate_gradient"``) or its full name (``"BODY_KIND_RIGID"``); it comes
  back short and lower case;
* unset optional fields are left out; other scalars and lists are always there.

Messages themselves are accepted wherever a dict is.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, Tuple, Type, TypeVar, Union

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from .v1 import types_pb2

M = TypeVar("M", bound=Message)


class Id(NamedTuple):
    """A stable id: never reused; a stale one is answered with NOT_FOUND."""

    index: int
    generation: int

    def __str__(self) -> str:
        return f"{self.index}:{self.generation}"


# What the wrapper takes where the proto has an Id, a BodyRef or a Vec3.
IdLike = Union[Id, Tuple[int, int], Sequence[int], types_pb2.Id]
"""An object's id: `linkage.Id`, any (index, generation) pair, or a linkage.v1.Id."""
BodyLike = Union[str, Id, Tuple[int, int], types_pb2.BodyRef, Mapping[str, Any], None]
"""A body: its name, its Id, a linkage.v1.BodyRef, or None for the world."""
Vector = Union[Sequence[float], Mapping[str, float], types_pb2.Vec3]
"""A vector: (x, y) or (x, y, z), {"x": .., "y": ..}, or a linkage.v1.Vec3."""
Fields = Union[Mapping[str, Any], Message, None]
"""A message given as a dict in the proto's form (snake_case keys), or the message itself."""


def _upper_snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).upper()


def enum_value(enum_type: EnumDescriptor, value: Union[str, int], path: str) -> int:
    """The number of an enum value given by short name, full name or number."""
    if isinstance(value, bool):
        raise ValueError(f"{path}: expected one of {enum_names(enum_type)}, got {value!r}")
    if isinstance(value, int):
        if value not in enum_type.values_by_number:
            raise ValueError(f"{path}: {value} is not a {enum_type.name}")
        return value
    if isinstance(value, str):
        name = value.strip().upper().replace("-", "_")
        prefix = _upper_snake(enum_type.name) + "_"
        for candidate in (name, prefix + name):
            if candidate in enum_type.values_by_name:
                return enum_type.values_by_name[candidate].number
    raise ValueError(f"{path}: expected one of {enum_names(enum_type)}, got {value!r}")


def enum_names(enum_type: EnumDescriptor) -> list[str]:
    """An enum's values by their short lower-case names ("rigid", "rk4", ...)."""
    prefix = _upper_snake(enum_type.name) + "_"
    return [v.name[len(prefix):].lower() if v.name.startswith(prefix) else v.name for v in enum_type.values]


def enum_name(enum_type: EnumDescriptor, number: int) -> str:
    """One value's short lower-case name (its number as text if the enum has no such value)."""
    prefix = _upper_snake(enum_type.name) + "_"
    value = enum_type.values_by_number.get(number)
    if value is None:
        return str(number)
    return value.name[len(prefix):].lower() if value.name.startswith(prefix) else value.name


def fill(message: M, value: Any, path: str = "") -> M:
    """Sets `message` from a dict (or message) in the form described above."""
    name = message.DESCRIPTOR.full_name
    if isinstance(value, Message):
        if value.DESCRIPTOR.full_name != name:
            raise TypeError(f"{path or name}: expected {name}, got {value.DESCRIPTOR.full_name}")
        message.CopyFrom(value)
        return message
    if name == "linkage.v1.Vec3" and isinstance(value, (tuple, list)):
        if not 2 <= len(value) <= 3:
            raise ValueError(f"{path}: a vector has 2 or 3 components, got {len(value)}")
        value = dict(zip("xyz", value))
    elif name == "linkage.v1.Id" and isinstance(value, tuple):
        if len(value) != 2:
            raise ValueError(f"{path}: an id is (index, generation), got {value!r}")
        value = {"index": value[0], "generation": value[1]}
    elif name == "linkage.v1.BodyRef" and not isinstance(value, Mapping):
        if isinstance(value, str):
            value = {"name": value}
        elif isinstance(value, tuple):
            value = {"id": value}
    if not isinstance(value, Mapping):
        raise TypeError(f"{path or name}: expected a dict for {name}, got {type(value).__name__}")
    message.SetInParent()
    fields = message.DESCRIPTOR.fields_by_name
    camel = message.DESCRIPTOR.fields_by_camelcase_name
    for key, item in value.items():
        field = fields.get(key) or camel.get(key)
        where = f"{path}.{key}" if path else key
        if field is None:
            raise ValueError(f"{where}: {name} has no such field (it has {', '.join(fields)})")
        if item is None:
            continue
        if field.label == FieldDescriptor.LABEL_REPEATED:
            if isinstance(item, (str, bytes, Mapping)) or not hasattr(item, "__iter__"):
                raise TypeError(f"{where}: expected a list")
            target = getattr(message, field.name)
            for i, element in enumerate(item):
                if field.message_type is not None:
                    fill(target.add(), element, f"{where}[{i}]")
                else:
                    target.append(_scalar(field, element, f"{where}[{i}]"))
        elif field.message_type is not None:
            fill(getattr(message, field.name), item, where)
        else:
            try:
                setattr(message, field.name, _scalar(field, item, where))
            except (TypeError, ValueError) as error:
                raise ValueError(f"{where}: {error}") from None
    return message


def _scalar(field: FieldDescriptor, value: Any, path: str) -> Any:
    if field.enum_type is not None:
        return enum_value(field.enum_type, value, path)
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT) and isinstance(value, int) \
            and not isinstance(value, bool):
        return float(value)
    return value


def make(message_type: Type[M], value: Any = None, path: str = "", /, **fields: Any) -> M:
    """A new `message_type` from a dict or message and/or keyword arguments."""
    message = message_type()
    if value is not None:
        fill(message, value, path)
    if fields:
        fill(message, fields, path)
    return message


def plain(message: Message) -> Any:
    """A message as plain Python (dicts, lists, tuples, Id, short enum names)."""
    name = message.DESCRIPTOR.full_name
    if name == "linkage.v1.Vec3":
        return (message.x, message.y, message.z)
    if name == "linkage.v1.Id":
        return Id(message.index, message.generation)
    if name == "linkage.v1.BodyRef":
        which = message.WhichOneof("ref")
        return None if which is None else plain(message.id) if which == "id" else message.name
    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.label == FieldDescriptor.LABEL_REPEATED:
            out[field.name] = [plain(v) if field.message_type else _plain_scalar(field, v) for v in value]
        elif field.message_type is not None or field.has_presence:
            if message.HasField(field.name):
                out[field.name] = plain(value) if field.message_type else _plain_scalar(field, value)
        else:
            out[field.name] = _plain_scalar(field, value)
    return out


def _plain_scalar(field: FieldDescriptor, value: Any) -> Any:
    return enum_name(field.enum_type, value) if field.enum_type is not None else value


def ids(messages: Iterable[types_pb2.Id]) -> list[Id]:
    """linkage.v1.Id messages as `Id`s."""
    return [Id(m.index, m.generation) for m in messages]


def id_message(value: IdLike, path: str = "id") -> types_pb2.Id:
    """An id as a linkage.v1.Id message; ValueError/TypeError naming `path` if it is not one."""
    return make(types_pb2.Id, tuple(value) if isinstance(value, list) else value, path)
