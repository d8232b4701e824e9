#!/usr/bin/env python3
"""Writes the scenes/*.json files (linkage.v1.Scene in its JSON mapping).

The JSON files are what the server and the tests read; this script is how
the parametric ones (a 20-link chain, a 12 x 12 cloth, mechanisms whose
initial pose must close exactly) were made, so that a change of size or
speed is one edit here and a re-run:

    /usr/bin/python3 scenes/generate.py

Every mechanism starts in a pose that satisfies its constraints exactly
(lengths and angles are computed here, not eyeballed), so that no solver
starts by snapping a wrong pose shut. Standard library only.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


# Coordinates to 12 decimals: exact enough (constraints close to 1e-12 at
# the start) and readable; -0.0 and 1e-17 become 0.
def num(x):
    x = round(x, 12)
    return 0.0 if x == 0 else x


def v(x, y, z=None):
    return {"x": num(x), "y": num(y)} if z is None else {"x": num(x), "y": num(y), "z": num(z)}


def ref(name):
    return {"name": name} if name else {}


# --- settings --------------------------------------------------------------

# Witkin's force-based method, RK4 (lambda solved at every stage), sparse
# LDL^T. With substeps the drift feedback can be stiffer than the default
# 10 rad/s: critically damped at omega*h = 0.1 (50 rad/s at 8 substeps),
# where the README finds it works best.
def rk4(substeps=8):
    omega = 0.1 * 60 * substeps
    return {
        "tick_rate": 60,
        "substeps": substeps,
        "dynamics": "DYNAMICS_FORCE_BASED",
        "integrator": "INTEGRATOR_RK4",
        "solver": "LINEAR_SOLVER_LDLT",
        "feedback_stiffness": omega * omega,
        "feedback_damping": 2.0 * omega,
    }


# The exact preset: every constraint exact at each tick (velocity projection,
# the direct solver, Gauss-Newton projection to the nearest point, RATTLE),
# stable at 60 Hz without substeps; substeps where a scene's springs need them.
def exact(substeps=1):
    settings = {"tick_rate": 60, "preset": "PRESET_EXACT"}
    if substeps > 1:
        settings["substeps"] = substeps
    return settings


# Contacts: Box2D's method and iterations (8 velocity, 3 position), 60 Hz;
# substeps and other settings where a scene needs them.
def contacts(substeps=1, **more):
    settings = {"tick_rate": 60, "dynamics": "DYNAMICS_SEQUENTIAL_IMPULSES", "contacts": True, **more}
    if substeps > 1:
        settings["substeps"] = substeps
    return settings


# Contacts in the exact family: the exact preset with contacts on, every
# joint and every overlap held to the projection's tolerance.
def exact_contacts():
    return {"tick_rate": 60, "preset": "PRESET_EXACT", "contacts": True}


# --- building blocks -----------------------------------------------------------


class Scene:
    def __init__(self, title, description, settings):
        self.data = {"title": title, "description": description, "settings": settings,
                     "bodies": [], "constraints": [], "forces": []}

    def body(self, name, **fields):
        self.data["bodies"].append({"name": name, **fields})
        return name

    def particle(self, name, x, y, mass, radius=0.05, fixed=False, velocity=None, z=None):
        fields = {"position": v(x, y, z), "shape": {"disk": {"radius": radius}}}
        if fixed:
            fields["motion"] = "MOTION_FIXED"
        else:
            fields["mass"] = mass
        if velocity:
            fields["velocity"] = v(*velocity)
        return self.body(name, kind="BODY_KIND_PARTICLE", **fields)

    # A bar from (x0, y0) to (x1, y1): a rigid box of the given thickness,
    # its centre of mass at the midpoint; anchors at its ends are (±L/2, 0).
    # `motion` = (pivot, velocity of the pivot, angular velocity) starts it moving.
    def bar(self, name, x0, y0, x1, y1, thickness=0.06, density=10.0, motion=None):
        length = math.hypot(x1 - x0, y1 - y0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        fields = {}
        if motion:
            (px, py), (vx, vy), w = motion
            fields = {"velocity": v(vx - w * (cy - py), vy + w * (cx - px)), "angular_velocity": num(w)}
        self.body(name, kind="BODY_KIND_RIGID", position=v(cx, cy), angle=num(math.atan2(y1 - y0, x1 - x0)),
                  density=density, shape={"box": {"half_width": num(length / 2), "half_height": num(thickness / 2)}},
                  **fields)
        return length

    def constraint(self, type_, name=None, **fields):
        c = {type_: fields}
        if name:
            c["name"] = name
        self.data["constraints"].append(c)

    def spring(self, a, b, anchor_b, stiffness, damping):
        s = {"a": ref(a), "stiffness": stiffness, "damping": damping}
        if b:
            s["b"] = ref(b)
        if anchor_b:
            s["anchor_b"] = v(*anchor_b)
        self.data["forces"].append({"spring": s})

    def merge(self, other):
        for key in ("bodies", "constraints", "forces"):
            self.data[key] += other.data[key]

    def write(self, file):
        data = {k: val for k, val in self.data.items() if val != []}
        with open(os.path.join(HERE, file), "w") as f:
            f.write(dumps(data) + "\n")


# JSON with every small object on one line ({"x": 1.0, "y": 0.0}, a whole
# body or rod when it fits): a 144-particle cloth stays a file one can read.
def dumps(value, indent=0, width=110, prefix=0):
    flat = json.dumps(value, ensure_ascii=False)
    if indent + prefix + len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(val, indent + 2, width, len(k) + 4)}" for k, val in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(val, indent + 2, width) for val in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


# --- the mechanisms, each placed at (ox, oy) so the demo can line them up ----------


def pendulum(s, ox=0.0, oy=0.0, p=""):
    s.particle(p + "pivot", ox, oy, 0, radius=0.04, fixed=True)
    s.particle(p + "bob", ox + 1.0, oy, 1.0, radius=0.1)
    s.constraint("distance", p + "rod", a=ref(p + "pivot"), b=ref(p + "bob"))


def double_pendulum(s, ox=0.0, oy=0.0, p=""):
    # Two 1 m bars pinned end to end, the first to the world, released with
    # the first horizontal and the second at 45 degrees: chaotic at once.
    x1, y1 = ox + 1.0, oy
    x2, y2 = x1 + math.cos(math.pi / 4), y1 + math.sin(math.pi / 4)
    s.bar(p + "upper", ox, oy, x1, y1)
    s.bar(p + "lower", x1, y1, x2, y2)
    s.constraint("pin", p + "shoulder", anchor_a=v(ox, oy), b=ref(p + "upper"), anchor_b=v(-0.5, 0))
    s.constraint("pin", p + "elbow", a=ref(p + "upper"), anchor_a=v(0.5, 0), b=ref(p + "lower"),
                 anchor_b=v(-0.5, 0))


def chain(s, n=20, ox=0.0, oy=0.0, p="", spacing=0.1, mass=0.1):
    prev = None
    for i in range(1, n + 1):
        name = f"{p}link-{i}"
        s.particle(name, ox + spacing * i, oy, mass, radius=0.03)
        if prev:
            s.constraint("distance", a=ref(prev), b=ref(name))
        else:
            s.constraint("distance", p + "hook", anchor_a=v(ox, oy), b=ref(name))
        prev = name


def crank_slider(s, ox=0.0, oy=0.0, p="", crank=0.3, rod=1.0, speed=math.pi):
    # Crank up (90 degrees), its tip A; the piston's pin B on the x axis with |AB| = rod.
    ax, ay = ox, oy + crank
    bx, by = ox + math.sqrt(rod * rod - crank * crank), oy
    # Already turning at the motor's speed, every velocity consistent with the
    # joints: no start-up jolt. The crank is up, so its tip moves along -x
    # and the rod only translates at this instant.
    va = (-speed * (ay - oy), speed * (ax - ox))
    w_rod = -va[1] / (bx - ax)
    vb = (va[0] - w_rod * (by - ay), 0.0)
    s.bar(p + "crank", ox, oy, ax, ay, motion=((ox, oy), (0, 0), speed))
    s.bar(p + "rod", ax, ay, bx, by, thickness=0.04, motion=((ax, ay), va, w_rod))
    s.body(p + "piston", kind="BODY_KIND_RIGID", position=v(bx, by), velocity=v(*vb), density=10.0,
           shape={"box": {"half_width": 0.12, "half_height": 0.08}})
    s.constraint("pin", p + "main-bearing", anchor_a=v(ox, oy), b=ref(p + "crank"), anchor_b=v(-crank / 2, 0))
    s.constraint("pin", p + "crank-pin", a=ref(p + "crank"), anchor_a=v(crank / 2, 0), b=ref(p + "rod"),
                 anchor_b=v(-rod / 2, 0))
    s.constraint("pin", p + "wrist-pin", a=ref(p + "rod"), anchor_a=v(rod / 2, 0), b=ref(p + "piston"))
    s.constraint("point_on_line", p + "cylinder", anchor_a=v(ox, oy), b=ref(p + "piston"), axis=v(1, 0))
    s.constraint("relative_angle", p + "piston-guide", b=ref(p + "piston"))
    s.constraint("motor", p + "crank-motor", b=ref(p + "crank"), kind="MOTOR_KIND_ANGULAR", speed=speed)


def four_bar(s, ox=0.0, oy=0.0, p="", crank=0.3, coupler=1.0, rocker=0.8, ground=1.0, speed=math.pi):
    # Grashof: s + l = 0.3 + 1.0 <= p + q = 0.8 + 1.0, the shortest link is the
    # crank and it sits on the ground: a crank-rocker. Transmission angle stays
    # in 44..92 degrees, far from the singular 0 and 180.
    assert crank + max(coupler, rocker, ground) <= sum(sorted([coupler, rocker, ground])[:2]) + 1e-12
    dx = ox + ground
    ax, ay = ox, oy + crank  # crank up
    # B: |B - A| = coupler, |B - D| = rocker, the upper of the two solutions.
    ex, ey = dx - ax, oy - ay
    d = math.hypot(ex, ey)
    along = (coupler * coupler - rocker * rocker + d * d) / (2 * d)
    h = math.sqrt(coupler * coupler - along * along)
    bx = ax + along * ex / d - h * ey / d
    by = ay + along * ey / d + h * ex / d
    # Velocities consistent with the motor's speed: v_A + w2 x (B - A) = w3 x (B - D).
    va = (-speed * (ay - oy), speed * (ax - ox))
    r2, r3 = (bx - ax, by - ay), (bx - dx, by - oy)
    det = (-r2[1]) * (-r3[0]) - r3[1] * r2[0]
    w2 = ((-va[0]) * (-r3[0]) - r3[1] * (-va[1])) / det
    w3 = ((-r2[1]) * (-va[1]) - (-va[0]) * r2[0]) / det
    s.bar(p + "crank", ox, oy, ax, ay, motion=((ox, oy), (0, 0), speed))
    s.bar(p + "coupler", ax, ay, bx, by, thickness=0.04, motion=((ax, ay), va, w2))
    s.bar(p + "rocker", dx, oy, bx, by, motion=((dx, oy), (0, 0), w3))
    s.constraint("pin", p + "crank-pivot", anchor_a=v(ox, oy), b=ref(p + "crank"), anchor_b=v(-crank / 2, 0))
    s.constraint("pin", p + "crank-coupler", a=ref(p + "crank"), anchor_a=v(crank / 2, 0), b=ref(p + "coupler"),
                 anchor_b=v(-coupler / 2, 0))
    s.constraint("pin", p + "coupler-rocker", a=ref(p + "coupler"), anchor_a=v(coupler / 2, 0),
                 b=ref(p + "rocker"), anchor_b=v(rocker / 2, 0))
    s.constraint("pin", p + "rocker-pivot", anchor_a=v(dx, oy), b=ref(p + "rocker"), anchor_b=v(-rocker / 2, 0))
    s.constraint("motor", p + "crank-motor", b=ref(p + "crank"), kind="MOTOR_KIND_ANGULAR", speed=speed)


def bead_on_wire(s, ox=0.0, oy=0.0, p="", radius=1.0):
    # Two hoops: a bead let go level with the centre rocks like a pendulum; a
    # bead at the bottom at 7 m/s (more than sqrt(4 g R) = 6.3) loops for ever.
    s.particle(p + "bead", ox + radius, oy, 0.2, radius=0.06)
    s.constraint("point_on_circle", p + "wire", anchor_a=v(ox, oy), b=ref(p + "bead"), radius=radius)
    cx = ox + 2.5 * radius
    s.particle(p + "looping-bead", cx, oy - radius, 0.2, radius=0.06, velocity=(7.0, 0.0))
    s.constraint("point_on_circle", p + "loop-wire", anchor_a=v(cx, oy), b=ref(p + "looping-bead"), radius=radius)


def cloth_positions(n, spacing, span):
    # The top row hangs as an arc of n - 1 equal chords of `spacing` between
    # corners `span` apart (span < (n - 1) * spacing, so the row sags and is
    # never pulled straight, where its rods would be singular). Find the
    # circle's radius R by bisection on the chord angle.
    m = n - 1
    lo, hi = 1e-9, 2 * math.pi / m - 1e-9
    for _ in range(200):
        alpha = (lo + hi) / 2
        r = spacing / (2 * math.sin(alpha / 2))
        if 2 * r * math.sin(m * alpha / 2) > span:
            lo = alpha
        else:
            hi = alpha
    r = spacing / (2 * math.sin(alpha / 2))
    # Centre above the chord's midpoint; points from angle -pi/2 - m*alpha/2 up.
    cy = r * math.cos(m * alpha / 2)
    start = -math.pi / 2 - m * alpha / 2
    return [(span / 2 + r * math.cos(start + j * alpha), cy + r * math.sin(start + j * alpha)) for j in range(n)]


def cloth(s, n=12, ox=0.0, oy=0.0, p="", spacing=0.1, span=1.0, mass=0.05):
    top = cloth_positions(n, spacing, span)
    # Rows hang straight below the arc, so every vertical rod is exactly
    # `spacing` and every horizontal one is a chord of the arc.
    name = lambda i, j: f"{p}p-{i}-{j}"
    for i in range(n):
        for j in range(n):
            x, y = top[j]
            s.particle(name(i, j), ox + x, oy + y - spacing * i, mass, radius=0.02)
    for i in range(n):
        for j in range(n):
            if j + 1 < n:
                s.constraint("distance", a=ref(name(i, j)), b=ref(name(i, j + 1)), length=spacing)
            if i + 1 < n:
                s.constraint("distance", a=ref(name(i, j)), b=ref(name(i + 1, j)), length=spacing)
    for j, side in ((0, "left"), (n - 1, "right")):
        x, y = top[j]
        s.constraint("pin", f"{p}{side}-corner", anchor_a=v(ox + x, oy + y), b=ref(name(0, j)))


def rack_and_pinion(s, ox=0.0, oy=0.0, p="", radius=0.5, speed=0.25):
    # One turn moves the rack 2 pi r; at 0.25 rad/s the 6 m rack takes 40 s
    # to pass under the pinion from where it starts.
    # Started at the motor's speed, the rack at r * speed.
    s.body(p + "pinion", kind="BODY_KIND_RIGID", position=v(ox, oy), angular_velocity=speed, density=1.0,
           shape={"disk": {"radius": radius}})
    rack_y = oy - radius - 0.1
    s.body(p + "rack", kind="BODY_KIND_RIGID", position=v(ox - 2.5, rack_y), velocity=v(radius * speed, 0),
           density=1.0, shape={"box": {"half_width": 3.0, "half_height": 0.1}})
    s.constraint("pin", p + "axle", anchor_a=v(ox, oy), b=ref(p + "pinion"))
    s.constraint("motor", p + "pinion-motor", b=ref(p + "pinion"), kind="MOTOR_KIND_ANGULAR", speed=speed)
    s.constraint("point_on_line", p + "rack-guide", anchor_a=v(ox, rack_y), b=ref(p + "rack"), axis=v(1, 0))
    s.constraint("relative_angle", p + "rack-level", b=ref(p + "rack"))
    # The rack below the pinion moves with the pinion's bottom point, +x for a
    # counter-clockwise turn: the axis along which it travels r * theta is +x.
    s.constraint("rack_and_pinion", p + "mesh", rack=ref(p + "rack"), pinion=ref(p + "pinion"), axis=v(1, 0),
                 radius=radius)


def springs_vs_rods(s, n=10, ox=0.0, oy=0.0, p="", stiffness=1000.0, damping=0.2):
    chain(s, n, ox, oy, p + "rods-")
    sx = ox + 1.5
    prev = None
    for i in range(1, n + 1):
        name = f"{p}springs-link-{i}"
        s.particle(name, sx + 0.1 * i, oy, 0.1, radius=0.03)
        if prev:
            s.spring(name, prev, None, stiffness, damping)
        else:
            s.spring(name, None, (sx, oy), stiffness, damping)
        prev = name


def whirling_3d(s):
    # A spherical pendulum started on its conical orbit: at half-angle theta
    # on a rod L, speed sqrt(g L sin(theta) tan(theta)) keeps it circling.
    g, length, theta = 9.81, 1.0, math.radians(40)
    r, h = length * math.sin(theta), length * math.cos(theta)
    speed = math.sqrt(g * r * math.tan(theta))
    s.particle("conical-bob", r, -h, 1.0, radius=0.06, velocity=(0, 0, speed), z=0.0)
    s.constraint("distance", "conical-rod", anchor_a=v(0, 0, 0), b=ref("conical-bob"))
    # A 15-link chain hooked 1.5 m to the side, level along x, its free end
    # thrown sideways (along z): it falls and whirls out of its plane.
    n, spacing = 15, 0.1
    for i in range(1, n + 1):
        name = f"link-{i}"
        s.particle(name, 1.5 + spacing * i, 0.0, 0.1, radius=0.03, z=0.0,
                   velocity=(0, 0, 3.0 * i / n))
        if i == 1:
            s.constraint("distance", "hook", anchor_a=v(1.5, 0, 0), b=ref(name))
        else:
            s.constraint("distance", a=ref(f"link-{i - 1}"), b=ref(name))


def box_stack(s, n=10, ox=0.0):
    s.body("ground", kind="BODY_KIND_RIGID", motion="MOTION_FIXED", position=v(ox, -0.5),
           shape={"box": {"half_width": 10.0, "half_height": 0.5}})
    for i in range(n):
        s.body(f"box-{i + 1}", kind="BODY_KIND_RIGID", position=v(ox, 0.25 + 0.5 * i),
               shape={"box": {"half_width": 0.25, "half_height": 0.25}})
    s.body("ball", kind="BODY_KIND_RIGID", position=v(ox + 2.0, 3.0), shape={"disk": {"radius": 0.2}},
           material={"restitution": 0.8})


def ground(s, name="ground", x=0.0, half_width=10.0, top=0.0, **fields):
    s.body(name, kind="BODY_KIND_RIGID", motion="MOTION_FIXED", position=v(x, top - 0.5),
           shape={"box": {"half_width": half_width, "half_height": 0.5}}, **fields)


# Box2D's pyramid benchmark (bench/contact_bench.cpp builds the same): rows of
# unit boxes (half side 0.5) 1.125 apart, 20 at the base, 210 in all.
def pyramid(s, base=20):
    ground(s, half_width=40.0)
    for row in range(base):
        for i in range(base - row):
            s.body(f"box-{row + 1}-{i + 1}", kind="BODY_KIND_RIGID", position=v((i - (base - row - 1) * 0.5) * 1.125,
                                                                               0.5 + row),
                   shape={"box": {"half_width": 0.5, "half_height": 0.5}})


# Five disks hung side by side on rods from the world, the first lifted by
# `lift` radians: restitution 1, so each swing passes through the row to the
# last ball (the rods only join each disk to the world, so the disks still
# collide with each other). They hang `gap` apart, more than the contact
# margin: sequential impulses solve balls that already touch as one group
# that meets with no approach speed (inelastically), while balls apart meet
# one pair at a time, each with its approach speed and so its bounce.
def newtons_cradle(s, n=5, radius=0.1, length=1.0, lift=math.radians(30), gap=0.01, ox=0.0, oy=1.0, p=""):
    for i in range(n):
        px = ox + (i - (n - 1) / 2) * (2 * radius + gap)
        x, y = px, oy - length
        if i == 0:
            x, y = px - length * math.sin(lift), oy - length * math.cos(lift)
        s.body(f"{p}ball-{i + 1}", kind="BODY_KIND_RIGID", position=v(x, y), shape={"disk": {"radius": radius}},
               density=100.0, material={"friction": 0.0, "restitution": 1.0})
        s.constraint("distance", f"{p}rod-{i + 1}", a={}, b=ref(f"{p}ball-{i + 1}"), anchor_a=v(px, oy))


# Two ramps at `angle`, each with a box resting on it: on the first the pair's
# friction is 0.3 < tan(angle), so the box slides down at
# g (sin(angle) - 0.3 cos(angle)); on the second 0.8 > tan(angle) holds it.
def box_on_ramp(s, angle=math.radians(30)):
    c, sn = math.cos(angle), math.sin(angle)
    for k, (mu, ox) in enumerate(((0.3, -2.0), (0.8, 2.0))):
        ramp, box = f"ramp-{k + 1}", f"box-{k + 1}"
        cx, cy = ox, 1.0
        s.body(ramp, kind="BODY_KIND_RIGID", motion="MOTION_FIXED", position=v(cx, cy), angle=num(angle),
               shape={"box": {"half_width": 2.0, "half_height": 0.1}}, material={"friction": mu})
        # Up the slope by 1 m, on the ramp's top face (its normal is (-sin, cos)).
        along, up = 1.0, 0.1 + 0.2
        s.body(box, kind="BODY_KIND_RIGID", position=v(cx + along * c - up * sn, cy + along * sn + up * c),
               angle=num(angle), shape={"box": {"half_width": 0.2, "half_height": 0.2}}, material={"friction": mu})
    ground(s)


# A box of walls 7 m wide holding 500 disks (radius 0.1) dropped in rows:
# bench/contact_bench.cpp's ball pit.
def ball_pit(s, n=500):
    s.body("floor", kind="BODY_KIND_RIGID", motion="MOTION_FIXED", position=v(0, -0.5),
           shape={"box": {"half_width": 4.0, "half_height": 0.5}})
    for name, x in (("wall-left", -3.75), ("wall-right", 3.75)):
        s.body(name, kind="BODY_KIND_RIGID", motion="MOTION_FIXED", position=v(x, 4.0),
               shape={"box": {"half_width": 0.25, "half_height": 4.0}})
    for i in range(n):
        s.body(f"ball-{i + 1}", kind="BODY_KIND_RIGID", position=v(-3.0 + 0.25 * (i % 25), 0.2 + 0.25 * (i // 25)),
               shape={"disk": {"radius": 0.1}})


# An eccentric cam (a disk of radius r turning about a pin `e` from its
# centre, driven by a motor at `speed`) lifts a flat follower held upright
# on the vertical line through the pin (a slider and a fixed angle): the
# follower rides on the cam's top, r + e above the pin at the highest and
# r - e at the lowest, and gravity keeps it there (e speed^2 < g).
def cam_follower(s, ox=0.0, oy=0.0, p="", r=0.5, e=0.2, speed=math.pi):
    cam, follower = p + "cam", p + "follower"
    s.body(cam, kind="BODY_KIND_RIGID", position=v(ox + e, oy), angular_velocity=num(speed),
           velocity=v(0, e * speed), shape={"disk": {"radius": r}})
    s.constraint("pin", p + "cam-pin", a={}, b=ref(cam), anchor_a=v(ox, oy), anchor_b=v(-e, 0))
    s.constraint("motor", p + "cam-motor", a={}, b=ref(cam), speed=num(speed))
    s.body(follower, kind="BODY_KIND_RIGID", position=v(ox, oy + r + 0.1 + 0.001),
           shape={"box": {"half_width": 0.3, "half_height": 0.1}}, material={"friction": 0.1})
    s.constraint("point_on_line", p + "follower-slider", a={}, b=ref(follower), anchor_a=v(ox, oy),
                 axis=v(0, 1))
    s.constraint("relative_angle", p + "follower-upright", a={}, b=ref(follower))


# The demo's contact corner, right of its mechanisms: a ground, four boxes
# stacked, a ball dropped beside them, the cam-follower and Newton's cradle. The mechanisms'
# parts join one group that never collides (a linkage's bars lie in
# different planes and cross), so only this corner touches.
def demo_contacts(s, ox=10.0):
    for body in s.data["bodies"]:
        body["filter"] = {"group": -1}
    ground(s, "ground", ox, half_width=3.0, top=-1.5)
    for i in range(4):
        s.body(f"box-{i + 1}", kind="BODY_KIND_RIGID", position=v(ox - 2.0, -1.25 + 0.5 * i),
               shape={"box": {"half_width": 0.25, "half_height": 0.25}})
    s.body("ball", kind="BODY_KIND_RIGID", position=v(ox - 0.8, 1.0), shape={"disk": {"radius": 0.2}},
           material={"restitution": 0.8})
    cam_follower(s, ox + 1.2, -0.5, "cam-")
    # 3 cm apart, past the 2 cm contact margin: a ball at rest finds its
    # neighbour only once it moves, so each pair meets with its own approach
    # speed and bounces (pairs found in the same step meet as one group,
    # without a bounce between them).
    newtons_cradle(s, gap=0.03, ox=ox + 4.0, oy=1.0, p="cradle-")


def main():
    scenes = {}

    s = Scene("Pendulum", "A 1 kg bob on a 1 m rod, released level with its pivot: the period "
              "is 4 sqrt(L/g) K(sin(pi/4)) = 2.37 s.", rk4())
    pendulum(s)
    scenes["pendulum.json"] = s

    s = Scene("Double pendulum", "Two 1 m bars pinned end to end, let go from a bent pose: chaos "
              "after a few swings.", rk4())
    double_pendulum(s)
    scenes["double_pendulum.json"] = s

    s = Scene("Chain", "Twenty 0.1 kg links on 0.1 m rods, hooked to a fixed point and let go "
              "level: the free end whips.", exact())
    chain(s, 20)
    scenes["chain.json"] = s

    s = Scene("Cloth", "A 12 x 12 net of particles and rods hung by its two top corners, 1 m "
              "apart across a 1.1 m row so that the top sags rather than being pulled straight.",
              exact())
    cloth(s, 12)
    scenes["cloth.json"] = s

    s = Scene("Bead on a wire", "Witkin's bead on a circular wire, twice: one rocks like a "
              "pendulum, one is fast enough to loop for ever.", rk4())
    bead_on_wire(s)
    scenes["bead_on_wire.json"] = s

    s = Scene("Rack and pinion", "A motor turns a 0.5 m pinion at 0.25 rad/s; the rack on its "
              "level guide travels 2 pi r = 3.14 m per turn.", rk4())
    rack_and_pinion(s)
    scenes["rack_and_pinion.json"] = s

    s = Scene("Crank and slider", "A motor turns a 0.3 m crank at half a turn per second; a 1 m "
              "connecting rod drives a piston along its cylinder.", rk4())
    crank_slider(s)
    scenes["crank_slider.json"] = s

    s = Scene("Four-bar linkage", "A Grashof crank-rocker (crank 0.3, coupler 1, rocker 0.8, "
              "ground 1 m): the motor turns the crank round, the rocker swings.", rk4())
    four_bar(s)
    scenes["four_bar.json"] = s

    s = Scene("Springs versus rods", "Two ten-link chains let go side by side: one of rods "
              "(exact constraints), one of stiff springs (the penalty method) that stretches "
              "and rings.", exact(substeps=4))
    springs_vs_rods(s)
    scenes["springs_vs_rods.json"] = s

    # SHAKE rather than the preset's nearest-point projection: symplectic with
    # RATTLE, it keeps the looping bead's energy (nearest projection takes
    # the velocity's turn each step out of it, and at hω = 0.15 the bead
    # stops looping within a second); the demo's chain is light enough for it.
    s = Scene("Demo", "A double pendulum, a four-bar linkage, a crank and slider, a bead on a "
              "wire and a chain, side by side; to their right, on the ground, a stack of boxes, a ball "
              "bouncing with restitution 0.8, a cam lifting a follower and Newton's cradle. Every joint and every contact "
              "is held to 1e-10 (the exact preset with contacts).", {**exact_contacts(), "projection": "PROJECTION_SHAKE"})
    double_pendulum(s, -7.0, 1.0, "pendulum-")
    four_bar(s, -4.0, 0.0, "four-bar-")
    crank_slider(s, -1.5, 0.0, "crank-")
    bead_on_wire(s, 1.5, 0.5, "bead-", radius=0.8)
    chain(s, 20, 5.5, 1.0, "chain-")
    demo_contacts(s)
    scenes["demo.json"] = s

    s = Scene("Pendulums in 3D", "A spherical pendulum on its conical orbit (40 degrees, period "
              "2 pi sqrt(L cos(theta) / g) = 1.76 s) and a 15-link chain thrown sideways: "
              "particles in a 3D world, shown with an orbit camera.",
              {"dimension": 3, **exact()})
    whirling_3d(s)
    scenes["pendulums_3d.json"] = s

    s = Scene("Box stack", "Ten boxes stacked on the ground stand still (contacts, sequential impulses "
              "at Box2D's 8/3 iterations), beside a ball that bounces with restitution 0.8: each rebound "
              "reaches 0.64 of the height before.", contacts())
    box_stack(s)
    scenes["box_stack.json"] = s

    # Under 20 rows one step of 8/3 iterations leaves 6 mm of overlap at the
    # base, past the 5 mm slop; 4 substeps (Box2D v3's default) hold it.
    s = Scene("Box pyramid", "Box2D's pyramid benchmark: 210 unit boxes in rows from 20 at the base to 1 "
              "at the top, standing on the ground (contacts, sequential impulses at 8/3 iterations, 4 "
              "substeps: every overlap within the 5 mm slop).",
              contacts(4))
    pyramid(s)
    scenes["pyramid.json"] = s

    s = Scene("Newton's cradle", "Five heavy disks on rods, a centimetre apart, restitution 1: the first "
              "swings in from 30 degrees and the last one swings out, the three between nearly still "
              "(4 substeps, a 5 mm contact margin).", contacts(4, contact_margin=0.005))
    newtons_cradle(s)
    scenes["newtons_cradle.json"] = s

    s = Scene("Box on a ramp", "Two boxes on 30-degree ramps: with friction 0.3 (< tan 30) the left one "
              "slides down at g (sin 30 - 0.3 cos 30) = 2.36 m/s^2; with 0.8 the right one stays put "
              "(contacts in the exact family: the slide's acceleration is exact).",
              exact_contacts())
    box_on_ramp(s)
    scenes["box_on_ramp.json"] = s

    # Twenty-disk columns landing at once: one step of 8 iterations cannot
    # pass the impact up a column, and overlaps reach 17 mm; 4 substeps hold
    # them within the 5 mm slop.
    s = Scene("Ball pit", "500 disks dropped in rows into a box 7 m wide, settling into a heap "
              "(contacts, sequential impulses, 4 substeps: every overlap within the 5 mm slop; "
              "bench/contact_bench.cpp's ball pit).", contacts(4))
    ball_pit(s)
    scenes["ball_pit.json"] = s

    s = Scene("Cam and follower", "An eccentric cam turned by a motor lifts a flat follower held upright "
              "on a vertical slider: contacts and joints together in the exact family, the follower riding "
              "the cam's top 0.4 m up and down every 2 s, the joints and the contact held to 1e-10.",
              exact_contacts())
    cam_follower(s)
    scenes["cam_follower.json"] = s

    for file, scene in scenes.items():
        scene.write(file)


if __name__ == "__main__":
    main()
