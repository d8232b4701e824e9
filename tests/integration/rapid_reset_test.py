"""HTTP/2 rapid reset (CVE-2023-44487) on the real binary
(server/rpc/abandoned_calls.hpp): a connection that opens calls and resets
them at once, faster than the server may let it, is closed, and the server
goes on serving everyone else; one that cancels calls now and then keeps
its connection. Before, one connection doing it for 30 s grew linkaged to
6.3 GB and left it busy for 90 s more, other clients' calls waiting over 5 s.

Run: LINKAGED=build/server/linkaged python3 -m pytest tests/integration/rapid_reset_test.py     (~3 s)
"""
import pytest

from linkaged_process import events, parse, run
from raw_http2 import Http2, request


# IPv4, and IPv6 (gRPC names its peers "ipv6:[::1]:PORT"), whose loopback
# has one address: the other client shares it, on a connection of its own.
@pytest.mark.parametrize("listen,host,attacker_address,other_address,peer", [
    ("127.0.0.1:0", "127.0.0.1", "127.0.0.3", "127.0.0.1", "ipv4:127.0.0.3:"),
    ("[::1]:0", "::1", "::1", "::1", "ipv6:[::1]:"),
])
def test_a_connection_that_resets_its_calls_is_closed(listen, host, attacker_address, other_address, peer):
    found = {}

    def session(server):
        attacker = Http2(server.port, attacker_address, 1 << 20, host)
        found["sent"] = attacker.rapid_reset(100_000, "/linkage.v1.WorldService/GetWorld")
        assert attacker.closed_by_server(20), "the connection was kept"
        attacker.close()
        # Everyone else is served, at once.
        other = Http2(server.port, other_address, 1 << 20, host)
        call = other.call("/linkage.v1.WorldService/GetWorld", request("default"))
        other.pump(5, lambda: call in other.ended)
        assert other.status(call) == ("0", "")
        other.close()

    _, logged, _ = run(["--listen", listen, "--log-format", "json"], session, loopback=False)
    assert found["sent"] > 2000  # at least the burst a connection is allowed
    (closed,) = events(parse(logged), "server.connection_closed")
    assert closed["level"] == "warning"
    assert closed["fields"]["peer"].startswith(peer), closed
    assert "rapid reset" in closed["fields"]["reason"] and "faster than 200 a second" in closed["message"], closed


def test_a_client_that_cancels_now_and_then_keeps_its_connection(tmp_path):
    def session(server):
        client = Http2(server.port, "127.0.0.2", 1 << 20)
        for _ in range(5):  # 500 cancelled calls, well under the 2,000 a connection may make at once
            streams = [client.call("/linkage.v1.WorldService/GetWorld", request("default")) for _ in range(100)]
            for stream in streams:
                client.cancel(stream)
        call = client.call("/linkage.v1.WorldService/GetWorld", request("default"))
        client.pump(5, lambda: call in client.ended)
        assert client.status(call) == ("0", "")
        client.close()

    _, logged, _ = run(["--log-format", "json"], session)
    assert not events(parse(logged), "server.connection_closed")
