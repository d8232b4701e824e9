"""Clients that do not read their answers (server/host/unread.hpp,
server/connections.hpp), on the real binary, over raw HTTP/2 (python3-h2),
which lets a test do what a careless or hostile client does and no gRPC
library will: open calls on a connection whose flow-control window it never
opens, so that the server can send nothing back and holds every answer.

Before the limits, 200 ListBodies of a 90,000-body world left that way held
7.3 GB; here the world is smaller and the limits lower, so the same attack
would hold about 500 MB and the test asks for under 150.

Run: LINKAGED=build/server/linkaged python3 -m pytest tests/integration/unread_test.py     (~5 s)
"""
import json
import socket
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

from linkaged_process import events, parse, run

BODIES = 6000  # a ListBodies answer of about 330 kB
MESSAGE = 1 << 20
PER_PEER = 4 << 20
TOTAL = 16 << 20
RESOURCE_EXHAUSTED = "8"


def scene(tmp_path):
    path = tmp_path / "many.json"
    bodies = [{"name": f"p{i}", "kind": "BODY_KIND_PARTICLE", "mass": 1.0,
               "position": {"x": i % 100 * 0.1, "y": i // 100 * 0.1}} for i in range(BODIES)]
    path.write_text(json.dumps({"title": "many", "description": "free particles, no gravity",
                                "settings": {"tick_rate": 60, "gravity": {"x": 0, "y": 0}},
                                "bodies": bodies, "constraints": []}))
    return path


def request(world):
    """A ListBodiesRequest (or any request whose field 1 is the world) in gRPC's framing."""
    name = world.encode()
    message = b"\x0a" + bytes([len(name)]) + name
    return b"\x00" + len(message).to_bytes(4, "big") + message


class Http2:
    """One HTTP/2 connection from `source` (a loopback address of its own,
    which the server counts apart); `window` 0 reads nothing."""

    def __init__(self, port, source, window):
        self.sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        if window:
            self.conn.increment_flow_control_window(window)
        self.reading = window > 0
        self.flush()
        self.headers, self.trailers, self.data, self.reset, self.ended = {}, {}, {}, {}, set()
        self.settings = {}

    def flush(self):
        self.sock.sendall(self.conn.data_to_send())

    def call(self, path, body):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", path),
                                        (":authority", "linkage"), ("content-type", "application/grpc"),
                                        ("te", "trailers")])
        self.conn.send_data(stream, body, end_stream=True)
        self.flush()
        return stream

    def pump(self, seconds, until=lambda: False):
        """Takes what the server sends for `seconds`, or until `until()`."""
        end = time.monotonic() + seconds
        self.sock.settimeout(0.05)
        while time.monotonic() < end and not until():
            try:
                received = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            if not received:
                break
            for event in self.conn.receive_data(received):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    self.settings.update({k: v.new_value for k, v in event.changed_settings.items()})
                elif isinstance(event, h2.events.ResponseReceived):
                    self.headers[event.stream_id] = dict(event.headers)
                elif isinstance(event, h2.events.TrailersReceived):
                    self.trailers[event.stream_id] = dict(event.headers)
                elif isinstance(event, h2.events.DataReceived):
                    self.data[event.stream_id] = self.data.get(event.stream_id, b"") + event.data
                    if self.reading:
                        self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    self.reset[event.stream_id] = event.error_code
                if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                    self.ended.add(event.stream_id)
            self.flush()

    def status(self, stream):
        """grpc-status and grpc-message, from the trailers (or a trailers-only answer's headers)."""
        meta = self.trailers.get(stream) or self.headers.get(stream) or {}
        return meta.get(b"grpc-status", b"").decode(), meta.get(b"grpc-message", b"").decode()

    def closed_by_server(self, seconds):
        """Whether the server closes the connection within `seconds` (what
        it sends meanwhile is not parsed)."""
        self.sock.settimeout(seconds)
        try:
            while self.sock.recv(1 << 16):
                pass
        except socket.timeout:
            return False
        return True

    def close(self):
        self.sock.close()


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_answers_nobody_reads_are_bounded_by_address(tmp_path):
    found = {}

    def session(server):
        pid = server.proc.pid
        honest = Http2(server.port, "127.0.0.1", 1 << 24)
        first = honest.call("/linkage.v1.BodyService/ListBodies", request("default"))
        honest.pump(10, lambda: first in honest.ended)
        assert honest.status(first) == ("0", "")
        answer_bytes = len(honest.data[first])
        assert 200_000 < answer_bytes < MESSAGE
        rss_before = rss_mb(pid)

        # 200 lists on one connection that reads nothing: those that fit
        # the address's share are held, every later one is refused.
        stalled = Http2(server.port, "127.0.0.2", 0)
        streams = [stalled.call("/linkage.v1.BodyService/ListBodies", request("default")) for _ in range(200)]
        held = PER_PEER // answer_bytes
        stalled.pump(30, lambda: len(stalled.ended) >= len(streams) - held)
        stalled.pump(0.5)  # nothing more ends
        refused = [s for s in streams if s in stalled.ended]
        assert 1 <= len(streams) - len(refused) <= held
        found["held"] = len(streams) - len(refused)
        for stream in refused:
            code, message = stalled.status(stream)
            assert code == RESOURCE_EXHAUSTED, (code, message)
            assert "not read yet" in message and "--max-unread-bytes-per-peer" in message, message
        assert not stalled.data  # window shut: nothing was sent
        found["growth"] = rss_mb(pid) - rss_before

        # Small calls on it fill what is left of the address's share; past
        # that, calls from the address are refused before they run, on any
        # connection, streams too.
        small = [stalled.call("/linkage.v1.WorldService/GetWorld", request("default")) for _ in range(600)]
        stalled.pump(30, lambda: any(s in stalled.ended for s in small[-100:]))
        stalled.pump(0.5)
        turned_away = [s for s in small if s in stalled.ended]
        assert 0 < len(turned_away) < len(small)
        for stream in turned_away:
            code, message = stalled.status(stream)
            assert code == RESOURCE_EXHAUSTED and "not read yet" in message, (code, message)
        same = Http2(server.port, "127.0.0.2", 1 << 24)
        refused_now = same.call("/linkage.v1.WorldService/GetWorld", request("default"))
        stream_now = same.call("/linkage.v1.WorldService/StreamState", request("default"))
        same.pump(10, lambda: {refused_now, stream_now} <= same.ended)
        for stream in (refused_now, stream_now):
            code, message = same.status(stream)
            assert code == RESOURCE_EXHAUSTED and "not read yet" in message, (code, message)
        # Another address is served meanwhile.
        served = honest.call("/linkage.v1.BodyService/ListBodies", request("default"))
        honest.pump(10, lambda: served in honest.ended)
        assert honest.status(served) == ("0", "") and len(honest.data[served]) == answer_bytes

        # Once the stalled connection goes, its address is served again.
        stalled.close()
        again = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            again = same.call("/linkage.v1.BodyService/ListBodies", request("default"))
            same.pump(5, lambda: again in same.ended)
            if same.status(again)[0] == "0":
                break
            time.sleep(0.1)
        assert same.status(again) == ("0", "") and len(same.data[again]) == answer_bytes
        same.close()
        honest.close()

    _, logged, _ = run(["--scene", str(scene(tmp_path)), "--log-format", "json",
                        "--max-message-bytes", str(MESSAGE), "--max-unread-bytes-per-peer", str(PER_PEER),
                        "--max-unread-bytes", str(TOTAL)], session)
    # Each answer held is about 8 times its size in memory (the message and
    # its serialized copy): 200 held would be about 500 MB.
    assert found["growth"] < 150, found
    records = parse(logged)
    (listening,) = events(records, "server.listening")
    assert listening["fields"]["max_unread_bytes"] == TOTAL
    assert listening["fields"]["max_unread_bytes_per_peer"] == PER_PEER
    refusals = events(records, "server.unread_refused")
    assert refusals and refusals[0]["level"] == "warning"
    assert refusals[0]["fields"]["peer"] == "127.0.0.2" and refusals[0]["fields"]["refused"] >= 1


def test_a_connection_holds_a_bounded_number_of_calls(tmp_path):
    def session(server):
        conn = Http2(server.port, "127.0.0.2", 0)
        conn.pump(5, lambda: h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS in conn.settings)
        most = conn.settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS]
        assert most == 4 + 1024  # --max-streams and room beside them
        # A client that keeps to it is told to wait (h2 refuses to open more)...
        streams = [conn.call("/linkage.v1.WorldService/GetWorld", request("default")) for _ in range(most)]
        try:
            conn.call("/linkage.v1.WorldService/GetWorld", request("default"))
            raise AssertionError("h2 opened a stream past the server's limit")
        except h2.exceptions.TooManyStreamsError:
            pass
        conn.pump(1)
        assert not conn.ended & set(streams)  # each GetWorld answered but unread: held
        # ...and one that does not loses the connection (gRPC 1.51 takes it
        # for a protocol error: its calls end UNAVAILABLE, and it is closed).
        conn.conn.remote_settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] = 1 << 20
        conn.conn.remote_settings.acknowledge()
        for _ in range(20):
            conn.call("/linkage.v1.WorldService/GetWorld", request("default"))
        assert conn.closed_by_server(10), "the server kept a connection that opened streams past its limit"
        conn.close()

    run(["--scene", str(scene(tmp_path)), "--max-streams", "4"], session)


def test_limits_below_the_largest_answer_are_refused_at_start(tmp_path):
    import subprocess
    from linkaged_process import LINKAGED
    for flag in ("--max-unread-bytes", "--max-unread-bytes-per-peer"):
        done = subprocess.run([LINKAGED, "--listen", "127.0.0.1:0", "--max-message-bytes", "1048576", flag, "1048576"],
                              capture_output=True, timeout=10)
        assert done.returncode == 2, done
        text = (done.stdout + done.stderr).decode()
        assert flag + ": must be 0 (no limit) or at least --max-message-bytes plus 8 KiB (1056768 bytes)" in text, text
