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
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from linkaged_process import LINKAGED, ROOT, events, parse, run


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

    server, logged, stderr = run(["--log-format", "json", "--data-dir", str(data), "--scene", str(scene),
                                  "--metrics-listen", "127.0.0.1:0"], session)
    assert stderr == b""
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
    _, logged, _ = run(["--log-format", "json", "--data-dir", str(data)])
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


def test_a_listen_address_it_cannot_serve_is_refused_saying_why():
    def refusal(address, *flags):
        proc = subprocess.run([LINKAGED, "--log-format", "json", "--listen", address, *flags],
                              capture_output=True, timeout=10)
        assert proc.returncode == 2, (address, proc.stdout)
        (refused,) = events(parse(proc.stdout), "server.refused")
        return refused["message"]

    for port in ["99999", "", "50051x", "-1"]:
        assert "the port must be a number from 0 to 65535, got '" + port + "'" in refusal("127.0.0.1:" + port)
    assert "host:port" in refusal("127.0.0.1")
    # A name no resolver knows (past the access check, which asks for TLS off loopback).
    assert refusal("nonsense.invalid:5", "--insecure").startswith("--listen nonsense.invalid:5: ")
    with socket.socket() as taken:  # a port in use
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = "127.0.0.1:%d" % taken.getsockname()[1]
        assert refusal(address) == "cannot listen on " + address + ": Address already in use"


def test_text_is_the_default_and_the_flag_wins_over_the_environment():
    _, logged, _ = run([])
    assert re.search(rb"^\[[^\]]+\] \[info\] world 'default': created", logged, re.M)
    assert not logged.startswith(b"{")
    _, logged, _ = run([], env={"LINKAGE_LOG_FORMAT": "json"})
    assert events(parse(logged), "server.listening")
    _, logged, _ = run(["--log-format", "text"], env={"LINKAGE_LOG_FORMAT": "json"})
    assert not logged.startswith(b"{") and b"[info] linkaged listening on" in logged
