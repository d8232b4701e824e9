"""linkage: a Python client for the linkaged constrained-dynamics server.

    import linkage
    with linkage.Client("127.0.0.1:50051") as client:
        ...

`linkage.Client` wraps every RPC of linkage.v1 in plain Python; errors from
the server arrive as `linkage.LinkageError` (`.code`, `.message`). The stubs
generated from proto/ at build time are `linkage.v1` (e.g.
`linkage.v1.service_pb2`), for anything the wrapper does not cover.
"""

from .client import CONSTRAINT_TYPES, Batch, BatchResult, Client, LinkageError
from .convert import Id
from .stream import Changes, ConstraintRows, Snapshot, Stream, World

__all__ = ["Client", "LinkageError", "Id", "Batch", "BatchResult", "Stream", "Snapshot", "Changes",
           "ConstraintRows", "World", "CONSTRAINT_TYPES"]
__version__ = "0.1.0"
