import { describe, expect, it } from "vitest";
import { forwardable } from "./headers.js";

describe("forwardable", () => {
  it("keeps a caller's metadata", () => {
    const kept = forwardable(new Headers({ authorization: "Bearer t", "x-request-id": "7", "trace-bin": "AQID", cookie: "a=b" }));
    expect([...kept.keys()]).toEqual(["authorization", "cookie", "trace-bin", "x-request-id"]);
  });

  it("drops hop-by-hop headers, those the Connection header names, and the protocols' own", () => {
    const dropped = forwardable(
      new Headers({
        connection: "keep-alive, x-hop",
        "x-hop": "1",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        te: "trailers",
        host: "gateway:8080",
        "content-type": "application/connect+proto",
        "content-length": "12",
        "accept-encoding": "gzip",
        "user-agent": "Chrome",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "500",
        "grpc-timeout": "500m",
        "grpc-status": "0",
        "x-grpc-web": "1",
        "x-user-agent": "connect-es",
      }),
    );
    expect([...dropped.keys()]).toEqual([]);
  });
});
