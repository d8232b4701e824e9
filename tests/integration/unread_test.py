"""Clients that do not read their answers or never finish their requests
(server/host/unread.hpp, server/connections.hpp), on the real binary, over
raw HTTP/2 (python3-h2), which lets a test do what a careless or hostile
client does and no gRPC library will: open calls on a connection whose
flow-control window it never opens, so that the server can send nothing
back and holds every answer; or send the start of large requests and never
the rest.

Before the limits, 200 ListBodies of a 90,000-body world left that way held
7.3 GB; here the world is smaller and the limits lower, so the same attack
would hold about 500 MB and the test asks for under 150.

Run: LINKAGED=build/server/linkaged python3 -m pytest tests/integration/unread_test.py     (~17 s)
"""
import json
import time

import h2.exceptions
import pytest
import h2.settings

from linkaged_process import events, parse, run
from raw_http2 import Http2, request, rss_mb

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


def create_bodies(world, count):
    """A CreateBodiesRequest of `count` bodies of 1 kg, in gRPC's framing (11 bytes a body)."""
    name = world.encode()
    body = b"\x41" + bytes.fromhex("000000000000f03f")  # mass = 1.0: field 8, a little-endian double
    message = b"\x0a" + bytes([len(name)]) + name + (b"\x12" + bytes([len(body)]) + body) * count
    return b"\x00" + len(message).to_bytes(4, "big") + message


def test_a_calls_request_counts_while_the_call_is_under_way(tmp_path):
    def session(server):
        # One unread ListBodies answer (about 330 kB) held for 127.0.0.3...
        stalled = Http2(server.port, "127.0.0.3", 0)
        stalled.call("/linkage.v1.BodyService/ListBodies", request("default"))
        stalled.pump(1)
        # ...leaves it room for small calls, not for a 990 kB request beside
        # it: refused before it runs (the world it names does not exist, so
        # it would have been NOT_FOUND).
        same = Http2(server.port, "127.0.0.3", 1 << 24)
        small = same.call("/linkage.v1.WorldService/GetWorld", request("nowhere"))
        large = same.call_large("/linkage.v1.BodyService/CreateBodies", create_bodies("nowhere", 90_000))
        same.pump(10, lambda: {small, large} <= same.ended)
        assert same.status(small)[0] == "5", same.status(small)
        code, message = same.status(large)
        assert code == RESOURCE_EXHAUSTED and "requests of their calls" in message, (code, message)
        # Another address has the room.
        other = Http2(server.port, "127.0.0.4", 1 << 24)
        fits = other.call_large("/linkage.v1.BodyService/CreateBodies", create_bodies("nowhere", 90_000))
        other.pump(10, lambda: fits in other.ended)
        assert other.status(fits)[0] == "5", other.status(fits)
        for conn in (stalled, same, other):
            conn.close()

    run(["--scene", str(scene(tmp_path)), "--max-message-bytes", str(MESSAGE),
         "--max-unread-bytes-per-peer", str(MESSAGE + (64 << 10)), "--max-unread-bytes", str(TOTAL)], session)


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


@pytest.mark.parametrize("quota_mb", [0, 64])
def test_requests_that_never_finish_are_bounded(quota_mb):
    found = {}

    def session(server):
        pid = server.proc.pid
        before = rss_mb(pid)
        sender = Http2(server.port, "127.0.0.2", 1 << 20)
        found["sent_mb"] = sender.unfinished_requests(100, "/linkage.v1.WorldService/LoadScene", 6) / 2**20
        found["growth"] = rss_mb(pid) - before
        found["reset"] = len(sender.reset)
        other = Http2(server.port, "127.0.0.1", 1 << 20)
        call = other.call("/linkage.v1.WorldService/GetWorld", request("default"))
        other.pump(5, lambda: call in other.ended)
        assert other.status(call) == ("0", "")
        other.close()
        sender.close()

    run(["--max-transport-bytes", str(quota_mb << 20)], session)
    if quota_mb == 0:
        # gRPC's default: the server holds all that came.
        assert found["sent_mb"] > 64 and found["growth"] > 0.6 * found["sent_mb"] and found["reset"] == 0, found
    else:
        # Calls cancelled once gRPC's buffers reach the quota.
        assert found["growth"] < 150 and found["reset"] > 0, found
