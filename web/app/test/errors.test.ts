import { Code, ConnectError } from "@linkage/client";
import { describe, expect, it } from "vitest";
import { describeError, errorCode } from "../src/errors";

describe("describeError", () => {
  it("prints a server error as its code and message", () => {
    const err = new ConnectError("constraint.distance.length: must be > 0", Code.InvalidArgument);
    expect(describeError(err)).toBe("INVALID_ARGUMENT: constraint.distance.length: must be > 0");
    expect(errorCode(err)).toBe(Code.InvalidArgument);
  });

  it("says where a token goes when the server wants one", () => {
    const err = new ConnectError("a bearer token is required", Code.Unauthenticated);
    expect(describeError(err)).toBe("UNAUTHENTICATED: a bearer token is required (the token goes under Access, in the sidebar)");
  });

  it("prints anything else as UNKNOWN", () => {
    expect(describeError(new Error("boom"))).toBe("UNKNOWN: boom");
  });
});
