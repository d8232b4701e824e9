"""HTTP/2 as a careless or hostile client speaks it (python3-h2), for the
tests of what such clients can make linkaged hold: calls on a connection
whose flow-control window is never opened, streams past the server's limit,
calls reset as soon as they are opened. No gRPC library does these.
"""
import socket
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings


def request(world):
    """A ListBodiesRequest (or any request whose field 1 is the world) in gRPC's framing."""
    name = world.encode()
    message = b"\x0a" + bytes([len(name)]) + name
    return b"\x00" + len(message).to_bytes(4, "big") + message


class Http2:
    """One HTTP/2 connection to `host` from `source` (a loopback address of
    its own, which the server counts apart); `window` 0 reads nothing."""

    def __init__(self, port, source, window, host="127.0.0.1"):
        self.sock = socket.create_connection((host, port), source_address=(source, 0))
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

    def call_large(self, path, body, seconds=10):
        """A call whose message may pass the server's flow-control windows:
        sent as they open (or until the server ends the stream)."""
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", path),
                                        (":authority", "linkage"), ("content-type", "application/grpc"),
                                        ("te", "trailers")])
        self.flush()
        sent, end = 0, time.monotonic() + seconds
        while sent < len(body) and stream not in self.ended:
            room = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size, len(body) - sent)
            if room > 0:
                self.conn.send_data(stream, body[sent:sent + room], end_stream=sent + room == len(body))
                sent += room
                self.flush()
            else:
                assert time.monotonic() < end, "the server's windows stayed shut"
                self.pump(0.05)
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

    def cancel(self, stream):
        self.conn.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
        self.flush()

    def rapid_reset(self, count, path):
        """Opens `count` calls and resets each at once (HEADERS with no
        message, then RST_STREAM: no flow control to wait for), reading
        nothing back; stops early if the server closes the connection.
        Returns how many it sent."""
        headers = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "linkage"),
                   ("content-type", "application/grpc"), ("te", "trailers")]
        self.sock.setblocking(False)
        try:
            for sent in range(count):
                stream = self.conn.get_next_available_stream_id()
                self.conn.send_headers(stream, headers, end_stream=True)
                self.conn.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
                if sent % 200 == 199:
                    self._send_raw(self.conn.data_to_send())
            self._send_raw(self.conn.data_to_send())
            return count
        except (BrokenPipeError, ConnectionResetError):
            return sent
        finally:
            self.sock.setblocking(True)

    def _send_raw(self, data):
        """Sends `data`, throwing away what the server sends meanwhile."""
        view = memoryview(data)
        while view:
            try:
                view = view[self.sock.send(view):]
            except BlockingIOError:
                try:
                    if self.sock.recv(1 << 16) == b"":
                        raise ConnectionResetError("closed by the server")
                except BlockingIOError:
                    time.sleep(0.001)
        try:
            while self.sock.recv(1 << 16):
                pass
        except BlockingIOError:
            pass

    def unfinished_requests(self, count, path, seconds):
        """Opens `count` calls whose message says 16 MB is coming and sends
        its bytes as fast as the windows let it for `seconds`, never the
        whole (the server must hold what came); returns the bytes sent."""
        streams = [self.conn.get_next_available_stream_id() + 2 * i for i in range(count)]
        for stream in streams:
            self.conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", path),
                                            (":authority", "linkage"), ("content-type", "application/grpc"),
                                            ("te", "trailers")])
            self.conn.send_data(stream, b"\x00" + (16_000_000).to_bytes(4, "big"))
        self.flush()
        sent, chunk, end = 0, b"\x0a" * 16384, time.monotonic() + seconds
        while time.monotonic() < end:
            for stream in streams:
                if stream in self.ended:
                    continue
                room = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size,
                           len(chunk))
                if room > 0 and sent + room < 16_000_000 * count:
                    self.conn.send_data(stream, chunk[:room])
                    sent += room
            self.flush()
            self.pump(0.02)
        return sent

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
