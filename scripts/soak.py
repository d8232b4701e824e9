#!/usr/bin/python3
"""Soak linkaged: N clients x M streams x T minutes against one server.

Starts its own linkaged (the demo scene in `default`, and --worlds worlds of
ready scenes, all running), then N clients, each on its own connection: M
state streams (at 10, 30 or 60 Hz, some with constraints and diagnostics,
each reopened after 20 to 90 s) and a loop of random commands, valid and
invalid, every 0.2 to 1 s. Valid ones build and remove the client's own
bodies, rods and forces, kick its bodies, read worlds, bodies and scenes,
and now and then step a scratch world of its own; invalid ones are the
issue 12 kind (NaN, unknown ids and worlds, tick rates of 1e-300, endless
solver settings, stream rates of 1e-300, Step on a running world, a million
bodies, LoadScene with a non-finite number). Each answer is checked: a valid
command must succeed, an invalid one must get its own status; anything else
(DEADLINE_EXCEEDED, UNAVAILABLE, INTERNAL, an invalid command accepted) is
counted as unexpected.

Every --sample seconds it prints and records the server's resident memory,
its CPU use, every world's tick rate and new overruns, halts, and the calls
and frames of the interval. At the end: memory at the end of the warm-up
against the end and its slope, the slowest world's rate, the unexpected
answers; then SIGTERM, which must end linkaged with exit code 0.

    /usr/bin/python3 scripts/soak.py --clients 100 --streams 2 --minutes 10 --out soak.json

Needs the build's Python stubs (build/client/python) and linkaged; Debian's
python3-grpcio and python3-protobuf (call /usr/bin/python3).
"""

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = ["chain", "cloth", "four_bar", "crank_slider", "springs_vs_rods", "pendulums_3d", "rack_and_pinion",
          "double_pendulum"]
EXPECTED_FAILURES = {"NOT_FOUND", "INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=100, help="clients, each on its own connection (100)")
    p.add_argument("--streams", type=int, default=2, help="state streams per client (2)")
    p.add_argument("--minutes", type=float, default=10.0, help="how long to run (10)")
    p.add_argument("--worlds", type=int, default=8, help="running worlds besides default, from scenes/ (8)")
    p.add_argument("--sample", type=float, default=10.0, help="seconds between samples (10)")
    p.add_argument("--warmup", type=float, default=60.0, help="seconds before memory counts as settled (60)")
    p.add_argument("--linkaged", default=os.path.join(ROOT, "build/server/linkaged"), help="the server binary")
    p.add_argument("--python", default=os.path.join(ROOT, "build/client/python"),
                   help="the build's Python stubs (the directory holding linkage/v1)")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--out", help="write every sample and the summary here, as JSON")
    return p.parse_args()


ARGS = parse_args()
sys.path.insert(0, ARGS.python)
import grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402

from linkage.v1 import (body_pb2, constraint_pb2, force_pb2, scene_pb2, service_pb2,  # noqa: E402
                        service_pb2_grpc, types_pb2, world_pb2)


# The standard health check, without stubs (Debian has no Python package for
# them): an empty HealthCheckRequest, and a HealthCheckResponse whose only
# field, status (1, a varint), is SERVING = 1.
def serving(channel, timeout):
    check = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda r: r,
                                response_deserializer=lambda r: r)
    return check(b"", timeout=timeout) == b"\x08\x01"


# --- the server process ---

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, log_path):
        self.port = free_port()
        self.target = f"127.0.0.1:{self.port}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "--listen", self.target, "--log-level", "warn", "--scene", os.path.join(ROOT, "scenes/demo.json")],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.hz = os.sysconf("SC_CLK_TCK")

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/statm") as f:
            return int(f.read().split()[1]) * self.page / 2**20

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.hz  # utime + stime

    def threads(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/task"))

    def stop(self):
        """SIGTERM; the exit code and how long it took."""
        sent = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        return code, time.monotonic() - sent


# --- load ---

def vec(x=0.0, y=0.0, z=0.0):
    return types_pb2.Vec3(x=x, y=y, z=z)


def ref(name=None, body_id=None):
    if body_id is not None:
        return types_pb2.BodyRef(id=body_id)
    return types_pb2.BodyRef(name=name) if name else types_pb2.BodyRef()


class Stats:
    """The load process's counts, handed to the monitor every second."""

    def __init__(self):
        self.calls = Counter()       # ok, refused (as expected), unexpected
        self.frames = 0
        self.unexpected = []         # (what, code, message) not yet handed over

    def surprise(self, what, code, message):
        self.calls["unexpected"] += 1
        self.unexpected.append((what, code, message))

    def take(self):
        out = {"calls": dict(self.calls), "frames": self.frames, "unexpected": self.unexpected}
        self.calls, self.frames, self.unexpected = Counter(), 0, []
        return out


STATS = Stats()
STOP = asyncio.Event()  # the load process's: the run is ending


async def call(what, method, request, expect_ok, timeout=5.0):
    """One unary call, checked: a valid command must succeed, an invalid one must be refused with its own status."""
    try:
        response = await method(request, timeout=timeout)
        code, message = "OK", ""
    except grpc.aio.AioRpcError as e:
        response, code = None, e.code().name
        message = e.details()
    if STOP.is_set() and code in ("UNAVAILABLE", "CANCELLED"):
        return response  # the run is ending
    if expect_ok is True and code == "OK" or expect_ok is not True and code in (expect_ok or EXPECTED_FAILURES):
        STATS.calls["ok" if code == "OK" else "refused"] += 1
    elif expect_ok is True and code in ("NOT_FOUND", "RESOURCE_EXHAUSTED"):
        STATS.calls["refused"] += 1  # another client removed it, or the world is full: fair answers
    else:
        STATS.surprise(what, code, message if code != "OK" else "accepted")
    return response


class Client:
    def __init__(self, index, target, worlds, rng):
        self.index = index
        self.rng = rng
        self.worlds = worlds
        self.channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self.w = service_pb2_grpc.WorldServiceStub(self.channel)
        self.b = service_pb2_grpc.BodyServiceStub(self.channel)
        self.c = service_pb2_grpc.ConstraintServiceStub(self.channel)
        self.f = service_pb2_grpc.ForceServiceStub(self.channel)
        # Frames stay bytes: the client counts them, and the machine's time goes to the server.
        self.stream_state = self.channel.unary_stream("/linkage.v1.WorldService/StreamState",
                                                      request_serializer=service_pb2.StreamStateRequest.SerializeToString,
                                                      response_deserializer=lambda b: b)
        self.create_bodies_raw = self.channel.unary_unary("/linkage.v1.BodyService/CreateBodies",
                                                          request_serializer=lambda b: b,
                                                          response_deserializer=lambda b: b)
        self.home = worlds[index % len(worlds)]  # where its bodies live
        self.bodies = []  # (id, name) of its own bodies in home
        self.made = 0

    # -- streams --

    async def stream_forever(self, k):
        while not STOP.is_set():
            world = self.rng.choice(self.worlds)
            request = service_pb2.StreamStateRequest(world=world, rate_hz=self.rng.choice([10.0, 30.0, 60.0]),
                                                     constraints=self.rng.random() < 0.3,
                                                     diagnostics=self.rng.random() < 0.5)
            lifetime = self.rng.uniform(20, 90)
            call_ = self.stream_state(request)
            try:
                async def read():
                    async for _ in call_:
                        STATS.frames += 1
                await asyncio.wait_for(read(), timeout=lifetime)
            except asyncio.TimeoutError:
                pass  # reopened on another world
            except grpc.aio.AioRpcError as e:
                if not STOP.is_set():
                    STATS.surprise("StreamState", e.code().name, e.details())
                    await asyncio.sleep(1)
            finally:
                call_.cancel()

    # -- commands --

    def own(self):
        return self.rng.choice(self.bodies) if self.bodies else None

    async def create_body(self):
        if len(self.bodies) >= 12:
            return await self.remove_body()
        self.made += 1
        name = f"c{self.index}-b{self.made}"
        body = body_pb2.BodyDef(name=name, position=vec(self.rng.uniform(-2, 2), self.rng.uniform(-1, 2)),
                                mass=self.rng.uniform(0.1, 1.0))
        r = await call("CreateBody", self.b.CreateBody, service_pb2.CreateBodyRequest(world=self.home, body=body), True)
        if r is not None:
            self.bodies.append((r.id, name))

    async def remove_body(self):
        if not self.bodies:
            return await self.create_body()
        body_id, _ = self.bodies.pop(self.rng.randrange(len(self.bodies)))
        await call("RemoveBody", self.b.RemoveBody, service_pb2.RemoveBodyRequest(world=self.home, body=ref(body_id=body_id)),
                   True)

    async def add_rod(self):
        body = self.own()
        if body is None:
            return await self.create_body()
        rod = constraint_pb2.ConstraintDef(distance=constraint_pb2.Distance(b=ref(body_id=body[0]), anchor_a=vec(0, 2)))
        await call("AddConstraint", self.c.AddConstraint, service_pb2.AddConstraintRequest(world=self.home, constraint=rod),
                   True)

    async def kick(self):
        body = self.own()
        if body is None:
            return await self.create_body()
        impulse = force_pb2.Impulse(body=ref(body_id=body[0]), impulse=vec(self.rng.uniform(-0.3, 0.3), self.rng.uniform(0, 0.5)))
        await call("ApplyImpulse", self.f.ApplyImpulse, service_pb2.ApplyImpulseRequest(world=self.home, impulse=impulse),
                   True)

    async def push(self):
        body = self.own()
        if body is None:
            return await self.create_body()
        force = force_pb2.ForceDef(applied=force_pb2.AppliedForce(body=ref(body_id=body[0]), force=vec(0, 5), ticks=30))
        await call("AddForce", self.f.AddForce, service_pb2.AddForceRequest(world=self.home, force=force), True)

    async def read(self):
        what = self.rng.randrange(5)
        world = self.rng.choice(self.worlds)
        if what == 0:
            await call("ListWorlds", self.w.ListWorlds, service_pb2.ListWorldsRequest(), True)
        elif what == 1:
            await call("GetWorld", self.w.GetWorld, service_pb2.GetWorldRequest(world=world), True)
        elif what == 2:
            await call("ListBodies", self.b.ListBodies, service_pb2.ListBodiesRequest(world=world), True)
        elif what == 3:
            await call("ListConstraints", self.c.ListConstraints, service_pb2.ListConstraintsRequest(world=world), True)
        else:
            await call("SaveScene", self.w.SaveScene, service_pb2.SaveSceneRequest(world=world), True)

    async def scratch(self):
        """A world of its own: load a scene paused, step it with a deadline, delete it."""
        name = f"scratch-{self.index}"
        created = await call("CreateWorld", self.w.CreateWorld, service_pb2.CreateWorldRequest(name=name, paused=True),
                             True)
        if created is None:
            return
        scene = SCENE_MESSAGES[self.rng.choice(SCENES)]
        await call("LoadScene", self.w.LoadScene, service_pb2.LoadSceneRequest(world=name, scene=scene), True)
        await call("Step", self.w.Step, service_pb2.StepRequest(world=name, ticks=self.rng.choice([10, 100, 100000])),
                   True, timeout=self.rng.uniform(0.5, 2.0))
        await call("DeleteWorld", self.w.DeleteWorld, service_pb2.DeleteWorldRequest(world=name), True)

    async def invalid(self):
        nan = float("nan")
        world = self.home
        k = self.rng.randrange(10)
        if k == 0:
            body = body_pb2.BodyDef(position=vec(nan, 0), mass=1)
            await call("CreateBody NaN", self.b.CreateBody, service_pb2.CreateBodyRequest(world=world, body=body),
                       {"INVALID_ARGUMENT"})
        elif k == 1:
            await call("GetBody unknown", self.b.GetBody,
                       service_pb2.GetBodyRequest(world=world, body=ref(body_id=types_pb2.Id(index=999999, generation=1))),
                       {"NOT_FOUND"})
        elif k == 2:
            settings = world_pb2.WorldSettings(tick_rate=1e-300)
            await call("UpdateWorld tick_rate", self.w.UpdateWorld,
                       service_pb2.UpdateWorldRequest(world=world, settings=settings), {"INVALID_ARGUMENT"})
        elif k == 3:
            settings = world_pb2.WorldSettings(solver=world_pb2.LINEAR_SOLVER_GAUSS_SEIDEL, solver_tolerance=1e-300,
                                               solver_max_iterations=2**31 - 1)
            await call("UpdateWorld endless", self.w.UpdateWorld,
                       service_pb2.UpdateWorldRequest(world=world, settings=settings), {"INVALID_ARGUMENT"})
        elif k == 4:
            await call("Step running", self.w.Step, service_pb2.StepRequest(world=world, ticks=1000000),
                       {"FAILED_PRECONDITION"})
        elif k == 5:
            stream = self.stream_state(service_pb2.StreamStateRequest(world=world, rate_hz=1e-300))
            try:
                async for _ in stream:
                    pass
                code, message = "OK", "accepted"
            except grpc.aio.AioRpcError as e:
                code, message = e.code().name, e.details()
            if code == "INVALID_ARGUMENT":
                STATS.calls["refused"] += 1
            elif not STOP.is_set():
                STATS.surprise("StreamState 1e-300", code, message)
        elif k == 6:
            if self.rng.random() < 0.02:  # 8 MB each: now and then
                await call("CreateBodies 1M", self.create_bodies_raw, million_bodies(world), {"RESOURCE_EXHAUSTED"},
                           timeout=30)
            else:
                bodies = [body_pb2.BodyDef(mass=1, name="same")] * 2
                await call("CreateBodies same name", self.b.CreateBodies,
                           service_pb2.CreateBodiesRequest(world=world, bodies=bodies), {"INVALID_ARGUMENT",
                                                                                         "FAILED_PRECONDITION"})
        elif k == 7:
            await call("GetWorld missing", self.w.GetWorld, service_pb2.GetWorldRequest(world="x" * 8000),
                       {"NOT_FOUND"})
        elif k == 8:
            scene = scene_pb2.Scene(bodies=[body_pb2.BodyDef(name="p", position=vec(math.inf, 0), mass=1)])
            await call("LoadScene Inf", self.w.LoadScene, service_pb2.LoadSceneRequest(world=world, scene=scene),
                       {"INVALID_ARGUMENT"})
        else:
            await call("CreateWorld name", self.w.CreateWorld, service_pb2.CreateWorldRequest(name="no spaces"),
                       {"INVALID_ARGUMENT"})

    async def commands_forever(self):
        actions = [(self.create_body, 20), (self.remove_body, 12), (self.add_rod, 8), (self.kick, 10), (self.push, 6),
                   (self.read, 20), (self.invalid, 22), (self.scratch, 2)]
        choices, weights = zip(*actions)
        while not STOP.is_set():
            await asyncio.sleep(self.rng.uniform(0.2, 1.0))
            if not STOP.is_set():
                await self.rng.choices(choices, weights)[0]()

    async def run(self):
        tasks = [asyncio.create_task(self.stream_forever(k)) for k in range(ARGS.streams)]
        tasks.append(asyncio.create_task(self.commands_forever()))
        await STOP.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.channel.close()


SCENE_MESSAGES = {}
MILLION = {}


def million_bodies(world):
    """A CreateBodiesRequest of 1,000,001 bodies (case 8 of issue 12), serialized once per world."""
    if world not in MILLION:
        one = service_pb2.CreateBodiesRequest(bodies=[body_pb2.BodyDef(mass=1)]).SerializeToString()
        MILLION[world] = service_pb2.CreateBodiesRequest(world=world).SerializeToString() + one * 1000001
    return MILLION[world]


def load_scenes():
    for name in SCENES:
        with open(os.path.join(ROOT, "scenes", name + ".json")) as f:
            SCENE_MESSAGES[name] = json_format.Parse(f.read(), scene_pb2.Scene())


# --- the load, in a process of its own ---

async def load_main(target, worlds, reports, stop):
    load_scenes()
    clients = [Client(i, target, worlds, random.Random(ARGS.seed * 1000 + i)) for i in range(ARGS.clients)]
    runs = [asyncio.create_task(c.run()) for c in clients]
    while not stop.is_set():
        await asyncio.sleep(1)
        reports.put(STATS.take())
    STOP.set()
    await asyncio.gather(*runs, return_exceptions=True)
    reports.put(STATS.take())


def load_process(target, worlds, reports, stop):
    asyncio.run(load_main(target, worlds, reports, stop))


# --- measuring, in the main process: its answers are the server's, not the load's event loop's ---

def wait_serving(server):
    channel = grpc.insecure_channel(server.target)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise SystemExit(f"linkaged exited at start-up ({server.proc.returncode}); see its log")
        try:
            if serving(channel, 1):
                channel.close()
                return
        except grpc.RpcError:
            time.sleep(0.1)
    raise SystemExit("linkaged did not serve within 15 s")


HEADER = (f"{'t (s)':>6} {'RSS MB':>7} {'CPU %':>6} {'threads':>7} {'min Hz':>7} {'mean Hz':>7} {'overruns':>8} "
          f"{'halts':>5} {'calls':>6} {'refused':>7} {'unexp':>5} {'frames/s':>8} {'list ms':>7} {'health ms':>9} "
          f"{'step ms':>7}")
PROBE = "soak-probe"  # the monitor's own paused world: a Step of a million ticks with a 0.5 s deadline each sample


class Monitor:
    def __init__(self, server):
        self.server = server
        self.channel = grpc.insecure_channel(server.target)
        self.worlds = service_pb2_grpc.WorldServiceStub(self.channel)
        self.rows = []
        self.worlds.CreateWorld(service_pb2.CreateWorldRequest(name=PROBE, paused=True), timeout=5)
        self.worlds.LoadScene(service_pb2.LoadSceneRequest(world=PROBE, scene=SCENE_MESSAGES["chain"]), timeout=5)
        self.worlds.Pause(service_pb2.PauseRequest(world=PROBE), timeout=5)
        self.unexpected = Counter()  # (what, code) -> count
        self.examples = {}
        self.failed_probes = 0
        self.last_cpu, self.last_t, self.last_worlds = server.cpu_seconds(), time.monotonic(), {}

    def take_reports(self, reports):
        calls, frames = Counter(), 0
        while not reports.empty():
            r = reports.get()
            calls.update(r["calls"])
            frames += r["frames"]
            for what, code, message in r["unexpected"]:
                if (what, code) not in self.examples:
                    print(f"unexpected: {what}: {code}: {message}", flush=True)
                    self.examples[(what, code)] = message
                self.unexpected[(what, code)] += 1
        return calls, frames

    def sample(self, started, reports):
        now, cpu = time.monotonic(), self.server.cpu_seconds()
        asked = time.monotonic()
        try:
            listed = self.worlds.ListWorlds(service_pb2.ListWorldsRequest(), timeout=5)
            list_ms = (time.monotonic() - asked) * 1e3
        except grpc.RpcError:
            listed, list_ms = None, None
            self.failed_probes += 1
        asked = time.monotonic()
        try:
            health_ok = serving(self.channel, 5)
            health_ms = (time.monotonic() - asked) * 1e3
        except grpc.RpcError:
            health_ok, health_ms = False, None
        if not health_ok:
            self.failed_probes += 1
        # A Step must answer before its deadline, with the ticks it did, however busy the server.
        asked = time.monotonic()
        try:
            stepped = self.worlds.Step(service_pb2.StepRequest(world=PROBE, ticks=1000000), timeout=0.5)
            step_ms = (time.monotonic() - asked) * 1e3
            if stepped.ended != service_pb2.STEP_END_DEADLINE:
                self.failed_probes += 1
        except grpc.RpcError:
            step_ms = None
            self.failed_probes += 1
        rates, overruns, halts, worlds = [], 0, 0, {}
        for w in listed.worlds if listed else []:
            if w.name.startswith("scratch-") or w.name == PROBE:
                continue
            worlds[w.name] = (w.tick, w.overruns, w.watchdog_halts + w.divergences)
            if w.name in self.last_worlds and not w.paused:
                tick0, over0, halts0 = self.last_worlds[w.name]
                rates.append((w.tick - tick0) / (now - self.last_t) / w.settings.tick_rate * 60.0)
                overruns += w.overruns - over0
                halts += w.watchdog_halts + w.divergences - halts0
        calls, frames = self.take_reports(reports)
        dt = now - self.last_t
        row = {
            "t": round(now - started, 1), "rss_mb": round(self.server.rss_mb(), 1),
            "cpu_percent": round(100 * (cpu - self.last_cpu) / dt, 1), "threads": self.server.threads(),
            "min_rate_hz": round(min(rates), 2) if rates else None,
            "mean_rate_hz": round(sum(rates) / len(rates), 2) if rates else None,
            "overruns": overruns, "halts": halts, "ok": calls.get("ok", 0), "refused": calls.get("refused", 0),
            "unexpected": calls.get("unexpected", 0), "frames_per_s": round(frames / dt),
            "list_worlds_ms": None if list_ms is None else round(list_ms, 1),
            "health_ms": None if health_ms is None else round(health_ms, 1),
            "step_probe_ms": None if step_ms is None else round(step_ms, 1),
        }
        self.rows.append(row)
        if listed:
            self.last_worlds = worlds
        self.last_cpu, self.last_t = cpu, now
        ms = lambda v: f"{v:>7.1f}" if v is not None else f"{'fail':>7}"  # noqa: E731
        print(f"{row['t']:>6.0f} {row['rss_mb']:>7.1f} {row['cpu_percent']:>6.1f} {row['threads']:>7} "
              f"{row['min_rate_hz'] or 0:>7.2f} {row['mean_rate_hz'] or 0:>7.2f} {overruns:>8} {halts:>5} "
              f"{row['ok']:>6} {row['refused']:>7} {row['unexpected']:>5} {row['frames_per_s']:>8} {ms(list_ms)} "
              f"{ms(health_ms):>9} {ms(step_ms)}", flush=True)


def slope_mb_per_minute(rows):
    if len(rows) < 2:
        return 0.0
    ts = [r["t"] / 60 for r in rows]
    ms = [r["rss_mb"] for r in rows]
    mt, mm = sum(ts) / len(ts), sum(ms) / len(ms)
    den = sum((t - mt) ** 2 for t in ts)
    return sum((t - mt) * (m - mm) for t, m in zip(ts, ms)) / den if den else 0.0


def setup_worlds(target):
    channel = grpc.insecure_channel(target)
    w = service_pb2_grpc.WorldServiceStub(channel)
    worlds = ["default"]
    for i in range(ARGS.worlds):
        name = f"soak-{i}"
        w.CreateWorld(service_pb2.CreateWorldRequest(name=name, paused=True), timeout=5)
        w.LoadScene(service_pb2.LoadSceneRequest(world=name, scene=SCENE_MESSAGES[SCENES[i % len(SCENES)]]), timeout=5)
        w.Resume(service_pb2.ResumeRequest(world=name), timeout=5)
        worlds.append(name)
    channel.close()
    return worlds


def summarize(monitor, worlds, code, seconds):
    rows = monitor.rows
    settled = [r for r in rows if r["t"] >= ARGS.warmup] or rows
    rated = [r for r in settled if r["min_rate_hz"] is not None]
    probed = [r for r in rows if r["list_worlds_ms"] is not None and r["health_ms"] is not None]
    return {
        "clients": ARGS.clients, "streams_per_client": ARGS.streams, "minutes": ARGS.minutes, "worlds": len(worlds),
        "rss_mb_after_warmup": settled[0]["rss_mb"], "rss_mb_end": rows[-1]["rss_mb"],
        "rss_mb_max": max(r["rss_mb"] for r in rows),
        "rss_slope_mb_per_min_after_warmup": round(slope_mb_per_minute(settled), 3),
        "cpu_percent_mean": round(sum(r["cpu_percent"] for r in settled) / len(settled), 1),
        "min_world_rate_hz": min(r["min_rate_hz"] for r in rated) if rated else None,
        "mean_world_rate_hz": round(sum(r["mean_rate_hz"] for r in rated) / len(rated), 2) if rated else None,
        "overruns": sum(r["overruns"] for r in rows), "halts": sum(r["halts"] for r in rows),
        "calls_ok": sum(r["ok"] for r in rows), "calls_refused": sum(r["refused"] for r in rows),
        "unexpected": sum(r["unexpected"] for r in rows),
        "frames_per_s_mean": round(sum(r["frames_per_s"] for r in settled) / len(settled)),
        "list_worlds_ms_max": max(r["list_worlds_ms"] for r in probed) if probed else None,
        "health_ms_max": max(r["health_ms"] for r in probed) if probed else None,
        "step_probe_ms_max": max((r["step_probe_ms"] for r in rows if r["step_probe_ms"] is not None), default=None),
        "failed_probes": monitor.failed_probes,
        "sigterm_exit_code": code, "sigterm_seconds": round(seconds, 2),
    }


def main():
    random.seed(ARGS.seed)
    load_scenes()
    log_path = (ARGS.out or "soak") + ".linkaged.log"
    server = Server(ARGS.linkaged, log_path)
    # Spawned, not forked: gRPC's core does not survive a fork of a process that has used it.
    spawn = multiprocessing.get_context("spawn")
    reports, stop = spawn.Queue(), spawn.Event()
    load = None
    try:
        wait_serving(server)
        worlds = setup_worlds(server.target)
        print(f"linkaged pid {server.proc.pid} on {server.target}: {ARGS.clients} clients x {ARGS.streams} streams, "
              f"{len(worlds)} worlds, {ARGS.minutes} min; its log: {log_path}", flush=True)
        load = spawn.Process(target=load_process, args=(server.target, worlds, reports, stop))
        load.start()
        monitor = Monitor(server)
        print(HEADER, flush=True)
        started = time.monotonic()
        end = started + ARGS.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(ARGS.sample, max(0.0, end - time.monotonic())))
            monitor.sample(started, reports)
            if not load.is_alive():
                raise SystemExit(f"the load process ended early ({load.exitcode})")
        stop.set()
        load.join(timeout=60)
        monitor.take_reports(reports)
    finally:
        if load is not None and load.is_alive():
            load.terminate()
        code, seconds = server.stop()

    summary = summarize(monitor, worlds, code, seconds)
    print(json.dumps(summary, indent=2))
    for (what, status), n in monitor.unexpected.most_common(20):
        print(f"unexpected: {what}: {status} x{n}: {monitor.examples[(what, status)]}")
    if ARGS.out:
        with open(ARGS.out, "w") as f:
            json.dump({"summary": summary, "samples": monitor.rows,
                       "unexpected": [{"what": k[0], "code": k[1], "count": n, "example": monitor.examples[k]}
                                      for k, n in monitor.unexpected.items()]}, f, indent=1)
    ok = code == 0 and summary["unexpected"] == 0 and summary["failed_probes"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
