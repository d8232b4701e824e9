// Server errors as the viewer shows them: "INVALID_ARGUMENT:
// constraint.distance.length: must be > 0 …", the way the server's other
// clients print them.
import { LinkageError, type Code } from "@linkage/client";

export function describeError(err: unknown): string {
  return LinkageError.from(err).message;
}

export function errorCode(err: unknown): Code {
  return LinkageError.from(err).code;
}
