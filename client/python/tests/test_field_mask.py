"""Keyword updates go as update masks: only the fields given change, nothing
is read first, and on a running world a mass change leaves the body's
position and velocity where the world has them."""

import math
import time

import pytest


def test_keyword_updates_change_only_what_they_name(client, world):
    client.create_body(world, name="bob", kind="rigid", shape={"disk": {"radius": 0.1}}, position=(1, 0), mass=2.0,
                       linear_damping=0.1)
    rod = client.add_constraint(world, "distance", b="bob", name="rod")
    spring = client.add_spring(world, "bob", anchor_b=(0, 1), stiffness=50, damping=0.5)

    client.resume(world)
    time.sleep(0.3)  # bob swings down its rod
    body = client.update_body(world, "bob", mass=7.0)["def"]
    x, y, _ = body["position"]
    assert body["mass"] == 7.0 and body["linear_damping"] == pytest.approx(0.1)
    assert y < -0.1 and math.hypot(x, y) == pytest.approx(1.0, abs=1e-3)  # where the world had it
    assert math.hypot(*body["velocity"]) > 0.1
    client.pause(world)

    c = client.update_constraint(world, rod, "distance", length=1.5)["def"]
    assert c["distance"]["length"] == 1.5 and c["name"] == "rod"
    c = client.update_constraint(world, rod, softness=4.0)["def"]  # the type read first, then a mask
    assert c["distance"]["length"] == 1.5 and c["softness"]["frequency"] == 4.0
    s = client.update_force(world, spring, stiffness=80)["def"]["spring"]
    assert s["stiffness"] == 80 and s["damping"] == 0.5 and s["anchor_b"][:2] == (0, 1)

    before = client.get_world(world)["settings"]
    after = client.update_world(world, substeps=before.get("substeps", 1) + 1)["settings"]
    assert after == {**before, "substeps": before.get("substeps", 1) + 1}

    batch = client.batch(world)
    batch.update_body("bob", angular_damping=0.3)
    batch.apply()
    b = client.get_body(world, "bob")["def"]
    assert b["angular_damping"] == pytest.approx(0.3) and b["mass"] == 7.0 and b["linear_damping"] == pytest.approx(0.1)
