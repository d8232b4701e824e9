// Server errors as the viewer shows them: "INVALID_ARGUMENT:
// constraint.distance.length: must be > 0 …", the way the server's other
// clients print them.
import { Code, LinkageError } from "@linkage/client";

// A server that wants a token says UNAUTHENTICATED; say where it goes.
export function describeError(err: unknown): string {
  const e = LinkageError.from(err);
  return e.code === Code.Unauthenticated ? `${e.message} (the token goes under Access, in the sidebar)` : e.message;
}

export function errorCode(err: unknown): Code {
  return LinkageError.from(err).code;
}
