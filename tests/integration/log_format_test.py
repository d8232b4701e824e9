"""linkaged's --log-format json on the real binary: every line it logs (on
stdout, spdlog's; stderr stays empty, gRPC's own lines taken in) is one JSON
object (time in RFC 3339 UTC, level, world when the line is about one,
event, message, fields), the events of a session are there with their
fields, and text that needs escaping (a quote, a tab, a byte that is not
UTF-8, in a scene path and in data directory entries) comes out exact.
The text format stays the default; the flag wins over LINKAGE_LOG_FORMAT.

Run: LINKAGED=build/server/linkaged LINKCTL=build/client/linkctl/linkctl \
     python3 -m pytest tests/integration/log_format_test.py     (~3 s)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINKAGED = os.environ.get("LINKAGED", str(ROOT / "build" / "server" / "linkaged"))
LINKCTL = os.environ.get("LINKCTL", str(ROOT / "build" / "client" / "linkctl" / "linkctl"))

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
LEVELS = {"trace", "debug", "info", "warning", "error", "critical"}
KEYS = {"time", "level", "world", "event", "message", "fields"}


class Linkaged:
    """linkaged on a free port, once it says so; its log lines so far."""

    def __init__(self, args, env=None):
        self.proc = subprocess.Popen(
            [LINKAGED, "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            assert line, b"linkaged exited before it listened:\n" + b"".join(self.lines)
            self.lines.append(line)
            match = re.search(rb"listening on \S+ \(port (\d+)\)", line)
            if match:
                self.port = int(match[1])
                return
        raise AssertionError("linkaged did not listen within 10 s")

    def ctl(self, *args):
        subprocess.run([LINKCTL, "--server", f"127.0.0.1:{self.port}", "--timeout", "5", *args],
                       check=True, capture_output=True)


def run(args, session=lambda server: None, env=None):
    """Starts linkaged, runs `session` on it, stops it; what it logged, as bytes."""
    server = Linkaged(args, env)
    session(server)
    server.proc.send_signal(signal.SIGTERM)
    rest, stderr = server.proc.communicate(timeout=10)
    assert server.proc.returncode == 0, stderr
    if "json" in args or (env or {}).get("LINKAGE_LOG_FORMAT") == "json" and "text" not in args:
        assert stderr == b"", stderr
    return server, b"".join(server.lines) + rest


def parse(logged):
    """Every line as a JSON object, checked for the keys and their forms."""
    records = []
    for line in logged.decode("utf-8").splitlines():  # strict: invalid UTF-8 raises
        record = json.loads(line)
        assert isinstance(record, dict) and set(record) <= KEYS, line
        assert TIME.fullmatch(record["time"]), line
        assert record["level"] in LEVELS, line
        assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)*", record["event"]), line
        assert isinstance(record["message"], str), line
        assert isinstance(record.get("world", ""), str) and isinstance(record.get("fields", {}), dict), line
        records.append(record)
    return records


def events(records, name, world=None):
    return [r for r in records if r["event"] == name and (world is None or r.get("world") == world)]


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "data"
    # Two entries of the worlds' directory that are no world: a name with a
    # quote, and one with a byte that is not UTF-8 (both set aside, logged).
    (d / "worlds").mkdir(parents=True)
    for name in ['we"ird', b"bad\xff"]:
        entry = os.path.join(os.fsencode(d / "worlds"), os.fsencode(name))
        os.mkdir(entry)
        Path(os.fsdecode(entry), "junk").write_bytes(b"x")
    return d


def test_every_line_is_one_json_object_with_the_sessions_events(tmp_path, data):
    scene = tmp_path / 'a "quoted"\tscene.json'
    shutil.copy(ROOT / "scenes" / "pendulum.json", scene)

    def session(server):
        server.ctl("world", "create", "kept", "--paused")
        server.ctl("world", "create", "gone")
        server.ctl("world", "delete", "gone")

    server, logged = run(["--log-format", "json", "--data-dir", str(data), "--scene", str(scene),
                          "--metrics-listen", "127.0.0.1:0"], session)
    records = parse(logged)

    (listening,) = events(records, "server.listening")
    assert listening["fields"]["port"] == server.port
    assert listening["fields"]["scene"] == str(scene)
    assert str(scene) in listening["message"]
    assert listening["level"] == "info" and "world" not in listening
    (metrics,) = events(records, "server.metrics")
    assert isinstance(metrics["fields"]["port"], int) and metrics["fields"]["port"] > 0
    created = {r["world"]: r["fields"] for r in events(records, "world.created")}
    assert created["kept"] == {"bodies": 0, "constraints": 0, "paused": True}
    assert created["gone"]["paused"] is False and created["default"]["bodies"] > 0
    assert len(events(records, "world.deleted", "gone")) == 1
    aside = sorted(r["fields"]["directory"] for r in events(records, "world.set_aside"))
    assert aside == sorted([str(data / "worlds" / 'we"ird'), str(data / "worlds" / "bad\ufffd")])
    assert all(r["level"] == "error" for r in events(records, "world.set_aside"))
    assert [r["fields"]["signal"] for r in events(records, "server.stopping")] == ["SIGTERM"]
    assert events(records, "server.stopped")

    # Started again on the same data: each world restored, at its tick.
    _, logged = run(["--log-format", "json", "--data-dir", str(data)])
    restored = {r["world"]: r["fields"] for r in events(parse(logged), "world.restored")}
    assert restored.keys() == {"default", "kept"}
    assert restored["kept"]["tick"] == 0 and restored["default"]["tick"] > 0


def test_a_refused_start_is_json_too(tmp_path):
    proc = subprocess.run([LINKAGED, "--log-format", "json", "--listen", "0.0.0.0:0"],
                          capture_output=True, timeout=10)
    assert proc.returncode == 2 and proc.stderr == b""
    (refused,) = parse(proc.stdout)
    assert refused["event"] == "server.refused" and refused["level"] == "critical"
    assert "--insecure" in refused["message"]


def test_text_is_the_default_and_the_flag_wins_over_the_environment():
    _, logged = run([])
    assert re.search(rb"^\[[^\]]+\] \[info\] world 'default': created", logged, re.M)
    assert not logged.startswith(b"{")
    _, logged = run([], env={"LINKAGE_LOG_FORMAT": "json"})
    assert events(parse(logged), "server.listening")
    _, logged = run(["--log-format", "text"], env={"LINKAGE_LOG_FORMAT": "json"})
    assert not logged.startswith(b"{") and b"[info] linkaged listening on" in logged
