"""linkage: a Python client for the linkaged constrained-dynamics server.

    import linkage
    with linkage.Client("127.0.0.1:50051") as client:
        ...

`linkage.Client` wraps every RPC of linkage.v1 in plain Python; errors from
the server arrive as `linkage.LinkageError` (`.code`, `.message`). The stubs
generated from proto/ when the package was built are `linkage.v1` (e.g.
`linkage.v1.service_pb2`), for anything the wrapper does not cover.
`Snapshot.arrays()` gives a frame as numpy arrays when numpy is installed
(the `numpy` extra).
"""

from ._version import __version__
from .arrays import SnapshotArrays
from .channel import Pem
from .client import CONSTRAINT_TYPES, Batch, BatchResult, Client, LinkageError, SceneLike
from .convert import BodyLike, Fields, Id, IdLike, Vector
from .stream import Changes, ConstraintRows, Contact, ContactEvent, Snapshot, Stream, World

__all__ = ["Client", "LinkageError", "Id", "Batch", "BatchResult", "Stream", "Snapshot", "SnapshotArrays",
           "Changes", "ConstraintRows", "Contact", "ContactEvent", "World", "CONSTRAINT_TYPES", "BodyLike", "IdLike", "Vector", "Fields",
           "Pem", "SceneLike", "__version__"]
