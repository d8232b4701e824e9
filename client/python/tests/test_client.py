"""The Python client against a real linkaged (see conftest.py)."""

import itertools
import json
import math
import os
import subprocess
import sys

import grpc
import pytest

import linkage
from conftest import REPO, Server

EXAMPLE = REPO / "client" / "python" / "examples" / "pendulum_and_chain.py"


def frames_until(stream, condition, limit=50):
    """The first snapshot for which condition holds, within `limit` frames."""
    for snapshot in itertools.islice(stream, limit):
        if condition(snapshot):
            return snapshot
    pytest.fail(f"no matching snapshot in {limit} frames")


def test_build_step_stream_and_remove(client, world):
    # Build: bodies one at a time and atomically, constraints by keywords and as a dict.
    pivot = client.create_body(world, name="pivot", motion="fixed", position=(0, 0))
    bob = client.create_body(world, name="bob", position=(1, 0), mass=1.0, shape={"disk": {"radius": 0.1}})
    hook, link = client.create_bodies(world, [
        {"name": "hook", "motion": "MOTION_FIXED", "position": {"x": 3, "y": 0}},
        {"name": "link", "position": (3.5, 0), "mass": 0.5},
    ])
    rod = client.add_constraint(world, "distance", a="pivot", b=bob, name="rod")
    rope = client.add_constraint(world, {"rope": {"a": "hook", "b": {"name": "link"}}, "name": "rope"})
    assert isinstance(bob, linkage.Id) and bob != pivot and {hook, link}.isdisjoint({pivot, bob})
    info = client.get_world(world)
    assert (info["body_count"], info["constraint_count"], info["paused"]) == (4, 2, True)
    assert client.get_constraint(world, rod)["def"]["distance"]["length"] == pytest.approx(1.0)
    assert client.get_constraint(world, rope)["def"]["name"] == "rope"
    updated = client.update_constraint(world, rope, max_length=0.75)  # the bodies stay
    assert updated["def"]["rope"]["max_length"] == 0.75 and updated["def"]["rope"]["b"] == link
    assert {b["def"]["name"] for b in client.list_bodies(world)} == {"pivot", "bob", "hook", "link"}

    # Step the paused world: exactly 30 ticks, and the bob swings down on its rod.
    assert client.step(world, 30)["tick"] == 30
    x, y, _ = client.get_body(world, "bob")["def"]["position"]
    assert y < -0.1 and math.hypot(x, y) == pytest.approx(1.0, abs=1e-4)
    assert client.get_constraint(world, rod)["lambda"][0] < 0  # the rod pulls

    # Stream the running world: the first frame carries the whole topology; the mirror follows it.
    client.resume(world)
    mirror = linkage.World()
    with client.stream(world, constraints=True, diagnostics=True) as stream:
        first = next(mirror.follow(stream))
        assert first.changes.full and first.dimension == 2 and first.world == world
        assert set(first.ids) == {pivot, bob, hook, link} and set(mirror.constraints) == {rod, rope}
        assert mirror.names["bob"] == bob and mirror.bodies[bob]["def"]["mass"] == 1.0
        assert len(first.positions[0]) == 2 and first.position(pivot) == (0.0, 0.0)
        d = first.diagnostics
        assert first.energy == pytest.approx(d["kinetic_energy"] + d["gravitational_energy"] + d["spring_energy"])
        assert {rows.id for rows in first.constraints} == {rod, rope}
        ticking = frames_until(mirror.follow(stream), lambda s: s.tick > first.tick and not s.changes)
        assert ticking.position(bob) != first.position(bob) and mirror.positions[bob] == ticking.position(bob)

        # Settings come with the first frame and again after each change, once.
        assert first.changes.settings is not None and mirror.settings["substeps"] == 1
        client.update_world(world, substeps=3)
        changed = frames_until(mirror.follow(stream), lambda s: s.changes.settings)
        assert changed.changes.settings["substeps"] == 3 and mirror.settings["substeps"] == 3
        after = frames_until(mirror.follow(stream), lambda s: s.tick > changed.tick)
        assert after.changes.settings is None

        # Remove through the wrapper: the body goes with its rod, and the stream says so.
        removed = client.remove_body(world, "bob")
        assert removed == {"removed_constraints": [rod], "removed_forces": []}
        later = frames_until(mirror.follow(stream), lambda s: s.changes.removed_bodies)
        assert later.changes.removed_bodies == [bob] and rod in later.changes.removed_constraints
        assert set(mirror.bodies) == {pivot, hook, link} and set(mirror.constraints) == {rope}
        assert bob not in later.ids and bob not in mirror.positions and rod not in mirror.constraint_rows

        client.remove_constraint(world, rope)
        frames_until(mirror.follow(stream), lambda s: s.changes.removed_constraints)
        assert mirror.constraints == {} and mirror.constraint_rows == {}
    assert stream.closed and list(stream) == []

    with pytest.raises(linkage.LinkageError) as error:
        client.get_body(world, bob)
    assert error.value.code == "NOT_FOUND"


def test_batch_is_atomic(client, world):
    with client.batch(world) as batch:
        batch.create_body(name="a", motion="fixed")
        batch.create_body(name="b", position=(0, -1), mass=2)
        batch.add_constraint("distance", a="a", b="b")
        batch.add_spring("a", "b", stiffness=10, damping=1)
    created = [r.created for r in batch.results]
    assert all(isinstance(i, linkage.Id) for i in created) and batch.tick is not None
    assert client.get_world(world)["body_count"] == 2

    # A bad command refuses the whole batch, and nothing changes.
    with pytest.raises(linkage.LinkageError) as error:
        client.apply_batch(world, [{"create_body": {"name": "c", "mass": 1}},
                                   {"add_constraint": {"pin": {"a": "c", "b": "nobody"}}}])
    assert error.value.code == "NOT_FOUND" and error.value.message.startswith("commands[1]")
    assert client.get_world(world)["body_count"] == 2

    results = client.apply_batch(world, [{"remove_body": "b"}])
    assert results[0].removed_constraints == [created[2]] and results[0].removed_forces == [created[3]]


def test_forces_and_impulses(client, world):
    ball = client.create_body(world, name="ball", position=(0, 0), mass=2.0)
    client.update_world(world, gravity=(0, 0))
    spring = client.add_spring(world, "ball", None, anchor_b=(0, 1), stiffness=50, damping=0.5)
    push = client.add_force(world, "ball", force=(4, 0), ticks=0)
    assert {f["id"] for f in client.list_forces(world)} == {spring, push}
    assert client.update_force(world, spring, stiffness=20)["def"]["spring"]["stiffness"] == 20
    client.remove_force(world, spring)
    client.apply_impulse(world, "ball", impulse=(0, 2))  # Δv = 1 m/s up
    client.step(world, 1)
    vx, vy, _ = client.get_body(world, ball)["def"]["velocity"]
    assert vy == pytest.approx(1.0) and vx == pytest.approx(4 / 2.0 / 60, rel=1e-6)
    client.update_body(world, "ball", position=(5, 5), velocity=(0, 0))  # the mass stays
    ball_now = client.get_body(world, "ball")["def"]
    assert ball_now["position"] == (5.0, 5.0, 0.0) and ball_now["mass"] == 2.0


def test_scenes_in_and_out(client, world, tmp_path):
    path = REPO / "scenes" / "pendulum.json"
    info = client.load_scene(world, path)  # a path
    assert info["body_count"] == 2 and info["constraint_count"] == 1
    saved = client.save_scene(world, tmp_path / "saved.json")
    assert [b["name"] for b in saved["bodies"]] == ["pivot", "bob"]
    assert json.loads((tmp_path / "saved.json").read_text()) == saved
    client.step(world, 10)
    assert client.get_body(world, "bob")["def"]["position"] != (1.0, 0.0, 0.0)
    client.reset(world)
    assert client.get_body(world, "bob")["def"]["position"] == (1.0, 0.0, 0.0)
    assert client.load_scene(world, path.read_text())["body_count"] == 2  # JSON text
    scene = {"settings": {"integrator": "semi_implicit_euler"},
             "bodies": [{"name": "p", "motion": "fixed"}, {"name": "q", "position": (0, -1), "mass": 1}],
             "constraints": [{"distance": {"a": "p", "b": "q"}}]}
    info = client.load_scene(world, scene)  # a dict, in the wrapper's short form
    assert info["settings"]["integrator"] == "semi_implicit_euler" and info["body_count"] == 2


def test_server_errors_are_linkage_errors(client, world):
    client.create_body(world, name="bob", position=(1, 0), mass=1)
    with pytest.raises(linkage.LinkageError) as error:
        client.add_constraint(world, "distance", b="bob", length=-1.0)
    assert error.value.code == "INVALID_ARGUMENT" and error.value.status is grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.message.startswith("constraint.distance.length")
    assert str(error.value) == f"INVALID_ARGUMENT: {error.value.message}"
    assert client.get_world(world)["constraint_count"] == 0  # bad input changes nothing

    with pytest.raises(linkage.LinkageError) as error:
        client.get_world("no-such-world")
    assert error.value.code == "NOT_FOUND" and "no-such-world" in error.value.message

    with pytest.raises(linkage.LinkageError) as error:
        client.create_world(world)
    assert error.value.code == "ALREADY_EXISTS" or error.value.code == "FAILED_PRECONDITION"

    with pytest.raises(linkage.LinkageError) as error:
        client.step(world, 0)
    assert error.value.code == "INVALID_ARGUMENT" and error.value.message.startswith("ticks")

    with pytest.raises(linkage.LinkageError) as error, client.stream("no-such-world") as stream:
        next(stream)
    assert error.value.code == "NOT_FOUND"

    # What cannot even be sent fails locally, before any call.
    with pytest.raises(ValueError, match="no such field"):
        client.create_body(world, nmae="typo")
    with pytest.raises(ValueError, match="expected one of"):
        client.create_body(world, kind="wobbly")
    with pytest.raises(ValueError, match="constraint type"):
        client.add_constraint(world, "spaghetti", b="bob")


def test_streams_end_with_unavailable_on_shutdown(tmp_path):
    server = Server(tmp_path / "linkaged.log")
    try:
        with linkage.Client(server.target) as client:
            client.wait_ready()
            stream = client.stream("default", rate_hz=30)
            next(stream)
            server.process.terminate()
            with pytest.raises(linkage.LinkageError) as error:
                for _ in stream:
                    pass
            assert error.value.code == "UNAVAILABLE"
    finally:
        assert server.stop() == 0


def test_unreachable_server():
    with linkage.Client("127.0.0.1:1", timeout=2) as client:
        with pytest.raises(linkage.LinkageError) as error:
            client.list_worlds()
        assert error.value.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED")


def test_the_example_runs(server, client):
    before = {w["name"] for w in client.list_worlds()}
    result = subprocess.run([sys.executable, str(EXAMPLE), "--server", server.target, "--seconds", "1.5",
                             "--every", "0.5", "--world", "example-under-test"],
                            capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["t", "(s)"]
    rows = [line.split() for line in lines[1:]]
    times = [float(r[0]) for r in rows]  # a line at the first frame on or after each half second
    assert len(times) == 4 and all(0.5 * k <= t < 0.5 * k + 0.25 for k, t in enumerate(times)), times
    assert all(abs(float(r[1])) < 1e-3 and float(r[2]) < 1e-4 for r in rows)  # the pendulum keeps E and |C|
    assert {w["name"] for w in client.list_worlds()} == before  # it cleaned up
