"""linkaged as a child process for the Python tests of its start-up, logs
and config file: started on a free port (it prints the port), driven with
linkctl, stopped with SIGTERM; its json log lines parsed and checked.
"""
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINKAGED = os.environ.get("LINKAGED", str(ROOT / "build" / "server" / "linkaged"))
LINKCTL = os.environ.get("LINKCTL", str(ROOT / "build" / "client" / "linkctl" / "linkctl"))

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
LEVELS = {"trace", "debug", "info", "warning", "error", "critical"}
KEYS = {"time", "level", "world", "event", "message", "fields"}


class Linkaged:
    """linkaged on a free port (unless `loopback` is False: then where its
    args say), once it says so; its log lines so far."""

    def __init__(self, args, env=None, loopback=True):
        self.proc = subprocess.Popen(
            [LINKAGED, *(["--listen", "127.0.0.1:0"] if loopback else []), *args],
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

    def command(self, *args):
        """A linkctl command line for this server."""
        return [LINKCTL, "--server", f"127.0.0.1:{self.port}", "--timeout", "5", *args]

    def ctl(self, *args):
        subprocess.run(self.command(*args), check=True, capture_output=True)


def run(args, session=lambda server: None, env=None, loopback=True):
    """Starts linkaged, runs `session` on it, stops it (exit 0): the server,
    what it logged (stdout) and its stderr, as bytes."""
    server = Linkaged(args, env, loopback)
    session(server)
    server.proc.send_signal(signal.SIGTERM)
    rest, stderr = server.proc.communicate(timeout=10)
    assert server.proc.returncode == 0, stderr
    return server, b"".join(server.lines) + rest, stderr


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
