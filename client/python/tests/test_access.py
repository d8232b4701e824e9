"""The token and TLS options of linkage.Client: against an in-process gRPC
server that records what reaches it (what the client sends), and against
linkaged with --tokens and TLS (that the server takes it)."""

import os
import subprocess
import threading
from concurrent import futures

import grpc
import pytest

import linkage
from conftest import Server
from linkage.v1 import service_pb2, service_pb2_grpc, snapshot_pb2, world_pb2


class Recorder(service_pb2_grpc.WorldServiceServicer):
    """GetWorld and StreamState that note each call's metadata and client certificate."""

    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()

    def _note(self, method, context):
        with self.lock:
            self.calls.append((method, dict(context.invocation_metadata()),
                               context.auth_context().get("x509_common_name")))

    def GetWorld(self, request, context):
        self._note("GetWorld", context)
        return service_pb2.GetWorldResponse(world=world_pb2.World(name=request.world, tick=7))

    def StreamState(self, request, context):
        self._note("StreamState", context)
        yield snapshot_pb2.Snapshot(world=request.world, tick=7, dimension=2)


def serve(recorder, credentials=None):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    service_pb2_grpc.add_WorldServiceServicer_to_server(recorder, server)
    port = (server.add_secure_port("127.0.0.1:0", credentials) if credentials
            else server.add_insecure_port("127.0.0.1:0"))
    server.start()
    return server, f"127.0.0.1:{port}"


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def plain_server(recorder):
    server, target = serve(recorder)
    yield target
    server.stop(None)


def test_the_token_goes_with_every_call_and_stream(recorder, plain_server):
    with linkage.Client(plain_server, timeout=5, token="s3cret-Token") as client:
        assert client.get_world("w")["tick"] == 7
        with client.stream("w") as stream:
            assert next(stream).tick == 7
        # The raw stubs over the client's channel send it too.
        service_pb2_grpc.WorldServiceStub(client.channel).GetWorld(service_pb2.GetWorldRequest(world="w"), timeout=5)
    assert [(m, md.get("authorization")) for m, md, _ in recorder.calls] == [
        ("GetWorld", "Bearer s3cret-Token"), ("StreamState", "Bearer s3cret-Token"),
        ("GetWorld", "Bearer s3cret-Token")]


def test_no_token_no_header(recorder, plain_server):
    with linkage.Client(plain_server, timeout=5) as client:
        client.get_world("w")
    assert "authorization" not in recorder.calls[0][1]


def test_options_refused_before_any_call():
    with pytest.raises(ValueError, match="token"):
        linkage.Client("127.0.0.1:1", token="two\nlines")
    with pytest.raises(ValueError, match="certificate_chain and private_key"):
        linkage.Client("127.0.0.1:1", certificate_chain=b"-----BEGIN CERTIFICATE-----")
    with pytest.raises(ValueError, match="server_name: only for TLS"):
        linkage.Client("127.0.0.1:1", server_name="linkage.test")
    with pytest.raises(TypeError, match="not both"):
        linkage.Client("127.0.0.1:1", credentials=grpc.ssl_channel_credentials(), tls=True)
    with pytest.raises(ValueError, match="root_certificates: cannot read '/no/such/ca.pem'"):
        linkage.Client("127.0.0.1:1", root_certificates="/no/such/ca.pem")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for 'linkage.test' and 127.0.0.1, a client certificate, and another CA."""
    d = tmp_path_factory.mktemp("pki")

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=30)

    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", f"/CN={ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.pem")
    for name, ext in (("server", "subjectAltName=DNS:linkage.test,IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr")
        (d / f"{name}.ext").write_text(ext + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem")
    return d


@pytest.fixture
def tls_server(recorder, pki):
    """Mutual TLS: the server asks for a client certificate signed by the CA and refuses calls without one."""
    credentials = grpc.ssl_server_credentials([((pki / "server.key").read_bytes(), (pki / "server.pem").read_bytes())],
                                              root_certificates=(pki / "ca.pem").read_bytes(),
                                              require_client_auth=True)
    server, target = serve(recorder, credentials)
    yield target
    server.stop(None)


def test_mutual_tls_with_a_token(recorder, pki, tls_server):
    # PEM files by path, and as bytes; the certificate names 127.0.0.1, or linkage.test by server_name.
    with linkage.Client(tls_server, timeout=5, token="t", root_certificates=pki / "ca.pem",
                        certificate_chain=str(pki / "client.pem"), private_key=pki / "client.key") as client:
        assert client.get_world("w")["name"] == "w"
    with linkage.Client(tls_server.replace("127.0.0.1", "localhost"), timeout=5,
                        root_certificates=(pki / "ca.pem").read_bytes(), server_name="linkage.test",
                        certificate_chain=(pki / "client.pem").read_text(),
                        private_key=(pki / "client.key").read_bytes()) as client:
        with client.stream("w") as stream:
            assert next(stream).world == "w"
    assert [(m, md.get("authorization"), cn) for m, md, cn in recorder.calls] == [
        ("GetWorld", "Bearer t", [b"client"]), ("StreamState", None, [b"client"])]


@pytest.mark.parametrize("case", ["no client certificate", "another CA", "plaintext"])
def test_what_the_tls_server_refuses(recorder, pki, tls_server, case):
    options = {"no client certificate": {"root_certificates": pki / "ca.pem"},
               "another CA": {"root_certificates": pki / "other-ca.pem", "certificate_chain": pki / "client.pem",
                              "private_key": pki / "client.key"},
               "plaintext": {}}[case]
    with linkage.Client(tls_server, timeout=3, **options) as client:
        with pytest.raises(linkage.LinkageError) as error:
            client.get_world("w")
    assert error.value.code == "UNAVAILABLE"
    assert recorder.calls == []


def test_linkaged_with_tokens_and_mutual_tls(pki, tmp_path):
    made = subprocess.run([os.environ["LINKAGED"], "token", "new", "py", "--role", "admin"], capture_output=True,
                          text=True, check=True, timeout=30).stdout.splitlines()
    token, line = made[0], made[1]
    (tmp_path / "tokens").write_text(line + "\n")
    server = Server(tmp_path / "linkaged.log", "--tokens", str(tmp_path / "tokens"),
                    "--tls-cert", str(pki / "server.pem"), "--tls-key", str(pki / "server.key"),
                    "--tls-client-ca", str(pki / "ca.pem"))
    tls = {"root_certificates": pki / "ca.pem", "certificate_chain": pki / "client.pem",
           "private_key": pki / "client.key"}
    try:
        with linkage.Client(server.target, timeout=5, token=token, **tls) as client:
            client.wait_ready(5)
            client.create_world("secure", paused=True)
            client.create_body("secure", name="bob", position=(1, 0), mass=1)
            with client.stream("secure") as stream:
                assert next(stream).positions == [(1.0, 0.0)]
            client.delete_world("secure")
        for wrong in (None, token[:-1] + ("0" if token[-1] != "0" else "1")):
            with linkage.Client(server.target, timeout=5, token=wrong, **tls) as client:
                with pytest.raises(linkage.LinkageError) as error:
                    client.list_worlds()
                assert error.value.code == "UNAUTHENTICATED", error.value
    finally:
        assert server.stop() == 0
