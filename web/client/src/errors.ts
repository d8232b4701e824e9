// Errors from the server (or the way to it) as one class, LinkageError: the
// gRPC status code (Connect's Code has the same numbers), its name as gRPC
// spells it, and the server's message untouched, which starts with the field
// at fault ("constraint.distance.length: must be > 0 ...").
import { Code, ConnectError } from "@connectrpc/connect";

export { Code, ConnectError };

/**
 * "INVALID_ARGUMENT" for Code.InvalidArgument: the names linkctl, the Python
 * client and the server's logs use.
 */
export function codeName(code: Code): string {
  return Code[code]?.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase() ?? String(code);
}

/**
 * A ConnectError (its name stays "ConnectError", so Connect's own checks and
 * ConnectError.from take it as one) with the code's gRPC name, and a message
 * that reads as linkctl prints errors.
 */
export class LinkageError extends ConnectError {
  /** The code's gRPC name: "INVALID_ARGUMENT", "NOT_FOUND", "UNAVAILABLE", ... */
  readonly codeName: string;

  constructor(message: string, code: Code, metadata?: HeadersInit, cause?: unknown) {
    super(message, code, metadata, undefined, cause);
    this.codeName = codeName(code);
    // ConnectError writes "[invalid_argument] message"; this reads as linkctl prints it.
    this.message = `${this.codeName}: ${message}`;
  }

  /** ConnectError's instanceof accepts any ConnectError; this one only its own. */
  static override [Symbol.hasInstance](v: unknown): boolean {
    return v instanceof ConnectError && "codeName" in v;
  }

  /** Any error as a LinkageError (see linkageError). */
  static override from(reason: unknown, code?: Code): LinkageError {
    return linkageError(reason, undefined, code);
  }
}

/**
 * Any error as a LinkageError: a ConnectError keeps its code and message,
 * anything else is `code` (UNKNOWN) with its text; but fetch failing to reach
 * `where` (it rejects with a TypeError, which Connect calls UNKNOWN) is
 * UNAVAILABLE, as gRPC says of a server it cannot reach.
 */
export function linkageError(err: unknown, where?: string, code?: Code): LinkageError {
  if (err instanceof LinkageError) return err;
  const e = ConnectError.from(err, code);
  if (e.code === Code.Unknown && e.cause instanceof TypeError) {
    const why = e.cause.cause instanceof Error ? ` (${e.cause.cause.message})` : "";
    return new LinkageError(`${where ?? "the server"} did not answer: ${e.cause.message}${why}`, Code.Unavailable, e.metadata, err);
  }
  return new LinkageError(e.rawMessage, e.code, e.metadata, err);
}

/** A stream's messages, with an error while reading them as a LinkageError. */
export async function* rethrowing<T>(messages: AsyncIterable<T>, where?: string): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (err) {
    throw linkageError(err, where);
  }
}
