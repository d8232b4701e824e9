"""Fixtures: a real linkaged on a free loopback port, and a client of it.

CTest's python_client (tests/client/python_wheel.sh) runs them with the
wheel installed in a fresh venv and LINKAGED naming the server binary. By
hand, on the package the build stages in build/client/python:

    LINKAGED=build/server/linkaged PYTHONPATH=build/client/python /usr/bin/python3 -m pytest -q client/python/tests
"""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

import linkage

REPO = Path(__file__).resolve().parents[3]


class Server:
    """linkaged on 127.0.0.1 with the port the kernel chose (--listen 127.0.0.1:0)."""

    def __init__(self, log: Path, *args: str):
        binary = os.environ.get("LINKAGED")
        if not binary or not os.access(binary, os.X_OK):
            pytest.fail(f"LINKAGED must name the linkaged binary (got {binary!r})")
        self.log = log
        # If pytest is killed (a CTest timeout), the server goes too: setpriv
        # (util-linux) sets the parent-death signal and execs it. Not a
        # preexec_fn: that makes Python fork and run grpc's fork handlers with
        # its threads live, which crashed pytest now and then.
        with open(log, "wb") as out:
            self.process = subprocess.Popen(["setpriv", "--pdeathsig", "TERM", binary, "--listen", "127.0.0.1:0", *args],
                                            stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            match = re.search(r"\(port (\d+)\)", log.read_text(errors="replace"))
            if match:
                self.port = int(match.group(1))
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"linkaged did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.02)
        self.target = f"127.0.0.1:{self.port}"

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def pytest_report_header():
    return f"linkage {linkage.__version__} from {os.path.dirname(linkage.__file__)}"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("linkaged") / "linkaged.log", "--scene", str(REPO / "scenes" / "demo.json"))
    yield s
    code = s.stop()
    assert code == 0, f"linkaged exited with {code}:\n{s.log.read_text(errors='replace')}"


@pytest.fixture
def client(server):
    with linkage.Client(server.target, timeout=10) as c:
        c.wait_ready(timeout=10)
        yield c


@pytest.fixture
def world(client, request):
    """A fresh paused world named after the test, deleted afterwards."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", request.node.name)[:64]
    client.create_world(name, paused=True)
    yield name
    try:
        client.delete_world(name)
    except linkage.LinkageError:
        pass
