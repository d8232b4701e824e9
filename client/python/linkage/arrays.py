"""A snapshot as numpy arrays (the optional `numpy` extra: pip install 'linkage[numpy]').

numpy is imported on first use only, so the rest of the package works
without it; `Snapshot.arrays()` is the way in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .v1 import snapshot_pb2

if TYPE_CHECKING:
    import numpy

__all__ = ["SnapshotArrays", "snapshot_arrays"]


class SnapshotArrays(NamedTuple):
    """One frame's state as numpy arrays (n bodies, m constraints, r rows in all).

    Row i of every body array is the body `ids[i]`; a constraint's rows are
    `lambdas[offsets[j]:offsets[j + 1]]` (likewise `errors`).
    """

    ids: "numpy.ndarray"                 # (n, 2) int64: index, generation
    positions: "numpy.ndarray"           # (n, dimension) float64, m
    velocities: "numpy.ndarray"          # (n, dimension) float64, m/s
    angles: "numpy.ndarray"              # (n,) float64, rad (0 for particles)
    angular_velocities: "numpy.ndarray"  # (n,) float64, rad/s
    constraint_ids: "numpy.ndarray"      # (m, 2) int64, when the stream sends constraints
    offsets: "numpy.ndarray"             # (m + 1,) int64: where each constraint's rows start
    lambdas: "numpy.ndarray"             # (r,) float64: λ per row
    errors: "numpy.ndarray"              # (r,) float64: C per row


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("Snapshot.arrays() needs numpy: pip install 'linkage[numpy]' "
                          "(or Debian's python3-numpy)") from None
    return numpy


def snapshot_arrays(message: snapshot_pb2.Snapshot) -> SnapshotArrays:
    """The arrays of one Snapshot message, copied straight from its repeated fields."""
    np = _numpy()
    d = max(message.dimension, 1)
    n = len(message.body_index)

    def vectors(values: Any) -> Any:
        return np.array(values, dtype=np.float64).reshape(n, d)

    def pairs(index: Any, generation: Any) -> Any:
        return np.stack([np.array(index, dtype=np.int64), np.array(generation, dtype=np.int64)], axis=1) \
            .reshape(len(index), 2)

    rows = np.array(message.constraint_rows, dtype=np.int64)
    return SnapshotArrays(
        ids=pairs(message.body_index, message.body_generation),
        positions=vectors(message.position),
        velocities=vectors(message.velocity),
        angles=np.array(message.angle, dtype=np.float64),
        angular_velocities=np.array(message.angular_velocity, dtype=np.float64),
        constraint_ids=pairs(message.constraint_index, message.constraint_generation),
        offsets=np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(rows)]),
        lambdas=np.array(getattr(message, "lambda"), dtype=np.float64),
        errors=np.array(message.error, dtype=np.float64))
