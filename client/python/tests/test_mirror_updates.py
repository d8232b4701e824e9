"""Issue 13: three clients race 2,000 random commands on one world (creates,
updates of every field kind, removes, batches, settings, scene loads and
resets) while a linkage.World mirror follows the stream. At the end the
mirror equals list_bodies / list_constraints / list_forces / get_world."""

import json
import random
import threading
import time

import linkage
from conftest import REPO

CLIENTS = 3
COMMANDS = 2000
STATE = ("position", "angle", "velocity", "angular_velocity")
SCENES = [json.loads((REPO / "scenes" / name).read_text()) for name in ("four_bar.json", "springs_vs_rods.json")]


class Racer:
    """One client's random commands; many are refused (ids another client removed), as for real clients."""

    def __init__(self, target, world, known, lock, seed):
        self.client = linkage.Client(target, timeout=10)
        self.world, self.known, self.lock, self.rng = world, known, lock, random.Random(seed)

    def pick(self, kind):
        with self.lock:
            ids = self.known[kind]
            return self.rng.choice(ids) if ids else linkage.Id(0, 0)

    def replaced(self):
        ids = {"bodies": [b["id"] for b in self.client.list_bodies(self.world)],
               "constraints": [k["id"] for k in self.client.list_constraints(self.world)],
               "springs": [f["id"] for f in self.client.list_forces(self.world)]}
        with self.lock:
            self.known.update(ids)

    def remember(self, kind, ids):
        with self.lock:
            self.known[kind].extend(ids)

    def name(self, prefix):
        return f"{prefix}{self.rng.randint(0, 40)}"  # a small pool: names collide, renames reuse freed ones

    def ref(self):
        return {"name": self.name("b")} if self.rng.random() < 0.2 else self.pick("bodies")

    def body(self, named=True):
        r = self.rng
        d = {"kind": "BODY_KIND_RIGID", "position": (r.uniform(-2, 2), r.uniform(-2, 2)), "angle": r.uniform(-3, 3),
             "velocity": (r.uniform(-1, 1), r.uniform(-1, 1)), "angular_velocity": r.uniform(-1, 1),
             "mass": r.uniform(0.1, 3), "motion": "MOTION_FIXED" if r.random() < 0.2 else "MOTION_DYNAMIC",
             "linear_damping": r.uniform(0, 0.5), "angular_damping": r.uniform(0, 0.5),
             "shape": ({"disk": {"radius": r.uniform(0.05, 0.5)}} if r.random() < 0.5 else
                       {"box": {"half_width": r.uniform(0.05, 0.5), "half_height": r.uniform(0.05, 0.5)}})}
        if named and r.random() < 0.5:
            d["name"] = self.name("b")
        return d

    def constraint(self):
        r = self.rng
        distance = {"a": self.ref(), "b": self.ref(), "anchor_a": (r.uniform(-0.1, 0.1), 0)}
        if r.random() < 0.5:
            distance["length"] = r.uniform(0.2, 2)
        d = {"distance": distance}
        if r.random() < 0.5:
            d["name"] = self.name("c")
        if r.random() < 0.3:
            d["softness"] = {"frequency": r.uniform(1, 20)}
        return d

    def spring(self):
        r = self.rng
        s = {"a": self.ref(), "anchor_b": (r.uniform(-1, 1), r.uniform(-1, 1)), "stiffness": r.uniform(0, 200),
             "damping": r.uniform(0, 2)}
        if r.random() < 0.5:
            s["b"] = self.ref()
        if r.random() < 0.5:
            s["rest_length"] = r.uniform(0, 2)
        return {"spring": s}

    def run_one(self, may_replace):
        """One random command; `may_replace`: a scene load or reset may be among them."""
        c, w, r = self.client, self.world, self.rng
        what = r.randrange(100)
        try:
            if what < 12:
                self.remember("bodies", [c.create_body(w, self.body())])
            elif what < 16:
                self.remember("bodies", c.create_bodies(w, [self.body() for _ in range(r.randint(1, 3))]))
            elif what < 34:
                c.update_body(w, self.ref(), self.body(named=r.random() < 0.3))
            elif what < 40:
                c.remove_body(w, self.ref())
            elif what < 50:
                self.remember("constraints", [c.add_constraint(w, self.constraint())])
            elif what < 62:
                # Keywords: the client reads the constraint and changes these (its bodies stay).
                fields = {"length": r.uniform(0.2, 2)} if r.random() < 0.7 else {}
                c.update_constraint(w, self.pick("constraints"), name=self.name("c") if r.random() < 0.3 else None,
                                    softness=r.uniform(0, 20) if r.random() < 0.3 else None, **fields)
            elif what < 66:
                c.remove_constraint(w, self.pick("constraints"))
            elif what < 72:
                self.remember("springs", [c.add_spring(w, **self.spring()["spring"])])
            elif what < 80:
                c.update_force(w, self.pick("springs"), stiffness=r.uniform(0, 200), damping=r.uniform(0, 2),
                               rest_length=r.uniform(0, 2))
            elif what < 84:
                c.remove_force(w, self.pick("springs"))
            elif what < 93:
                self.batch()
            elif what < 98 or not may_replace or r.random() < 0.75:
                c.update_world(w, gravity=(r.uniform(-1, 1), r.uniform(-10, 0)))
            else:  # replacing the world makes every id the clients hold stale: rarely
                if r.random() < 0.5:
                    c.load_scene(w, r.choice(SCENES))
                else:
                    c.reset(w)
                self.replaced()
        except linkage.LinkageError:
            pass
        except ValueError:
            # A constraint from a loaded scene may be a pin or another type
            # without a length: the client refuses the field before sending.
            pass

    def batch(self):
        r, b = self.rng, self.client.batch(self.world)
        kinds = []
        for _ in range(r.randint(2, 5)):
            k = r.randrange(8)
            if k == 0:
                b.create_body(self.body())
            elif k == 1:
                b.add({"update_body": {"body": self.ref(), "def": self.body(named=False)}})
            elif k == 2:
                b.remove_body(self.ref())
            elif k == 3:
                b.add({"add_constraint": self.constraint()})
            elif k == 4:
                b.add({"update_constraint": {"id": self.pick("constraints"), "constraint": self.constraint()}})
            elif k == 5:
                b.remove_constraint(self.pick("constraints"))
            elif k == 6:
                b.add({"add_force": self.spring()})
            else:
                b.remove_force(self.pick("springs"))
            kinds.append({0: "bodies", 3: "constraints", 6: "springs"}.get(k))
        for kind, result in zip(kinds, b.apply()):
            if kind and result.created:
                self.remember(kind, [result.created])


def without_state(body):
    return {**body, "def": {k: v for k, v in body["def"].items() if k not in STATE}}


def test_every_update_reaches_the_mirror(server, client, world):
    known, lock = {"bodies": [], "constraints": [], "springs": []}, threading.Lock()
    mirror = linkage.World()
    stream = client.stream(world)

    def follow():
        try:
            for _ in mirror.follow(stream):
                pass
        except linkage.LinkageError:  # closed at the end
            pass

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()

    def race(i):
        racer = Racer(server.target, world, known, lock, 1300 + i)
        # Scene loads and resets in the first half only: the second's updates
        # must reach the mirror as updates, not in a whole new picture.
        commands = COMMANDS // CLIENTS + (i < COMMANDS % CLIENTS)
        for n in range(commands):
            racer.run_one(n < commands // 2)
        racer.client.close()

    threads = [threading.Thread(target=race, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    def caught_up():
        info = client.get_world(world)
        deadline = time.monotonic() + 10
        while mirror.topology_version != info["topology_version"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert mirror.topology_version == info["topology_version"]
        return info

    # This reader may have been slow enough that most objects came to it
    # already updated; so once it has caught up, every object changes once more.
    caught_up()
    for i, b in enumerate(client.list_bodies(world)):
        client.update_body(world, b["id"], mass=1.0 + i, name=f"last{i}")
    for k in client.list_constraints(world):
        if "distance" in k["def"]:
            client.update_constraint(world, k["id"], length=k["def"]["distance"].get("length", 1.0) + 0.5)
    for f in client.list_forces(world):
        if "spring" in f["def"]:
            client.update_force(world, f["id"], stiffness=f["def"]["spring"].get("stiffness", 0.0) + 1.0)
    info = caught_up()
    bodies = {b["id"]: b for b in client.list_bodies(world)}
    constraints = {c["id"]: c for c in client.list_constraints(world)}
    springs = {f["id"]: f for f in client.list_forces(world) if "spring" in f["def"]}
    stream.close()
    reader.join(timeout=10)

    assert len(bodies) + len(constraints) > 5  # the race built something worth comparing
    assert mirror.settings == info["settings"]
    assert {i: without_state(b) for i, b in mirror.bodies.items()} == {i: without_state(b) for i, b in bodies.items()}
    for i, b in bodies.items():  # the state from the columns (the world is paused: nothing moved since)
        d = b["def"]
        zero = (0.0, 0.0, 0.0)
        assert mirror.positions[i][:2] == d.get("position", zero)[:2]
        assert mirror.velocities[i][:2] == d.get("velocity", zero)[:2]
        assert mirror.angles[i] == d.get("angle", 0.0) and mirror.angular_velocities[i] == d.get("angular_velocity", 0.0)
    assert {i: c["def"] for i, c in mirror.constraints.items()} == {i: c["def"] for i, c in constraints.items()}
    assert mirror.springs == springs
