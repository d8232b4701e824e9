"""Snapshot.arrays(): a frame as numpy arrays, equal to its plain-Python form."""

import sys

import numpy as np
import pytest

import linkage


def test_a_2d_frame_as_arrays(client, world):
    client.create_body(world, name="pivot", motion="fixed", position=(0, 0))
    bob = client.create_body(world, name="bob", position=(1, 0), mass=1.0)
    wheel = client.create_body(world, name="wheel", kind="rigid", shape={"disk": {"radius": 0.5}}, density=1,
                               position=(3, 0), angle=0.25)
    rod = client.add_constraint(world, "distance", a="pivot", b=bob)
    weld = client.add_constraint(world, "weld", b=wheel)  # three rows
    client.step(world, 5)
    with client.stream(world, constraints=True) as stream:
        frame = next(stream)
    a = frame.arrays()
    assert isinstance(a, linkage.SnapshotArrays)
    n = len(frame.ids)
    assert a.ids.shape == (n, 2) and a.ids.dtype == np.int64
    assert [linkage.Id(*row) for row in a.ids.tolist()] == frame.ids
    assert a.positions.shape == (n, 2) and a.velocities.shape == (n, 2) and a.positions.dtype == np.float64
    assert a.positions.tolist() == [list(p) for p in frame.positions]
    assert a.velocities.tolist() == [list(v) for v in frame.velocities]
    assert a.angles.tolist() == frame.angles and a.angular_velocities.tolist() == frame.angular_velocities
    assert a.angles[frame.ids.index(wheel)] != 0
    # Constraints: ids, and each one's rows between two offsets.
    assert [linkage.Id(*row) for row in a.constraint_ids.tolist()] == [c.id for c in frame.constraints]
    assert {c.id for c in frame.constraints} == {rod, weld}
    assert a.offsets[0] == 0 and a.offsets[-1] == len(a.lambdas) == len(a.errors)
    for j, rows in enumerate(frame.constraints):
        assert a.lambdas[a.offsets[j]:a.offsets[j + 1]].tolist() == list(rows.lambdas)
        assert a.errors[a.offsets[j]:a.offsets[j + 1]].tolist() == list(rows.errors)
    assert len(frame.constraints[[c.id for c in frame.constraints].index(weld)].lambdas) == 3


def test_a_3d_frame_without_constraints(client, request):
    world = request.node.name
    client.create_world(world, paused=True, dimension=3)
    try:
        client.create_bodies(world, [{"position": (i, 2 * i, 3 * i), "mass": 1} for i in range(4)])
        with client.stream(world) as stream:
            a = next(stream).arrays()
        assert a.positions.shape == (4, 3) and a.positions[:, 2].tolist() == [0, 3, 6, 9]
        assert a.constraint_ids.shape == (0, 2) and a.offsets.tolist() == [0] and a.lambdas.shape == (0,)
    finally:
        client.delete_world(world)


def test_without_numpy_the_error_names_the_extra(client, world, monkeypatch):
    client.create_body(world, position=(1, 0), mass=1)
    with client.stream(world) as stream:
        frame = next(stream)
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now raises ImportError
    with pytest.raises(ImportError, match=r"linkage\[numpy\]"):
        frame.arrays()
    assert frame.positions == [(1.0, 0.0)]  # the plain form needs no numpy
