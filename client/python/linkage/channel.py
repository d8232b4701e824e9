"""The channel under `linkage.Client`: plain or TLS (mutual TLS with a client
certificate), and a bearer token sent with every call.

The token goes in by an interceptor on the channel rather than as gRPC call
credentials: call credentials are only sent over TLS, and a server on
loopback may take tokens without TLS. Being on the channel, it also reaches
calls made through the raw stubs (`linkage.v1`) over `Client.channel`.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, NamedTuple, Optional, Sequence, Tuple, Union

import grpc

__all__ = ["Pem", "open_channel"]

Pem = Union[bytes, str, "os.PathLike[str]"]
"""PEM data: bytes or text holding it ("-----BEGIN ..."), or the path of a file that does."""


def _pem(value: Optional[Pem], what: str) -> Optional[bytes]:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and value.lstrip().startswith("-----BEGIN"):
        return value.encode()
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what}: expected PEM bytes or text, or a file's path, got {type(value).__name__}")
    try:
        with open(value, "rb") as file:
            return file.read()
    except OSError as error:
        raise ValueError(f"{what}: cannot read {os.fspath(value)!r}: {error.strerror}") from None


class _CallDetails(NamedTuple):
    method: str
    timeout: Optional[float]
    metadata: Optional[Sequence[Tuple[str, Union[str, bytes]]]]
    credentials: Optional[grpc.CallCredentials]
    wait_for_ready: Optional[bool]
    compression: Any


class _ClientCallDetails(_CallDetails, grpc.ClientCallDetails):
    """grpc.ClientCallDetails is abstract; this fills it from a tuple."""


class _Metadata(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds fixed metadata (the authorization header) to every call of every kind."""

    def __init__(self, pairs: Iterable[Tuple[str, str]]):
        self._pairs = tuple(pairs)

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = (*(details.metadata or ()), *self._pairs)
        return _ClientCallDetails(details.method, details.timeout, metadata, details.credentials,
                                  getattr(details, "wait_for_ready", None), getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails,
                              request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails,
                               request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails,
                               requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Callable[..., Any], details: grpc.ClientCallDetails,
                                requests: Any) -> Any:
        return continuation(self._details(details), requests)


def open_channel(target: str, *, token: Optional[str] = None, tls: bool = False,
                 root_certificates: Optional[Pem] = None, certificate_chain: Optional[Pem] = None,
                 private_key: Optional[Pem] = None, server_name: Optional[str] = None,
                 credentials: Optional[grpc.ChannelCredentials] = None,
                 options: Iterable[Tuple[str, Any]] = ()) -> grpc.Channel:
    """A channel to `target` as `linkage.Client` describes its keywords.

    TLS is on when `tls` is true or any of `root_certificates`,
    `certificate_chain`, `private_key` is given; without `root_certificates`
    the server's certificate must chain to the system's CAs. A client
    certificate needs both `certificate_chain` and `private_key`.
    `credentials` (grpc.ChannelCredentials of your own) excludes those.
    """
    channel_options = [("grpc.max_receive_message_length", -1), *options]
    pems = {"root_certificates": root_certificates, "certificate_chain": certificate_chain,
            "private_key": private_key}
    given = [name for name, value in pems.items() if value is not None]
    if credentials is not None and (given or tls or server_name is not None):
        raise TypeError(f"credentials: give either your own grpc.ChannelCredentials or TLS options "
                        f"({', '.join(given or ['tls'])}), not both")
    if (certificate_chain is None) != (private_key is None):
        raise ValueError("certificate_chain and private_key: a client certificate needs both "
                         "(the PEM certificate chain and its private key)")
    if server_name is not None and not (tls or given):
        raise ValueError("server_name: only for TLS (give tls=True or root_certificates)")
    if token is not None and (not isinstance(token, str) or not token or any(c in token for c in "\r\n")):
        raise ValueError("token: expected the token as a non-empty string of one line")
    if tls or given:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_pem(root_certificates, "root_certificates"),
            private_key=_pem(private_key, "private_key"),
            certificate_chain=_pem(certificate_chain, "certificate_chain"))
        if server_name is not None:
            channel_options.append(("grpc.ssl_target_name_override", server_name))
    channel = (grpc.secure_channel(target, credentials, channel_options) if credentials is not None
               else grpc.insecure_channel(target, channel_options))
    if token is not None:
        channel = grpc.intercept_channel(channel, _Metadata([("authorization", f"Bearer {token}")]))
    return channel
