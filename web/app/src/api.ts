// The linkage.v1 services over gRPC-Web, on the page's own origin (the
// gateway serves both the app and the API). gRPC-Web rather than Connect's
// own protocol: it answers errors with HTTP 200 and a grpc-status, so an
// expected INVALID_ARGUMENT or NOT_FOUND is shown in the message area
// without the browser also logging a failed request.
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { BodyService, ConstraintService, ForceService, WorldService } from "@linkage/proto/service_pb";

export interface Api {
  world: Client<typeof WorldService>;
  body: Client<typeof BodyService>;
  constraint: Client<typeof ConstraintService>;
  force: Client<typeof ForceService>;
}

export function createApi(baseUrl = window.location.origin): Api {
  const transport = createGrpcWebTransport({ baseUrl, useBinaryFormat: true });
  return {
    world: createClient(WorldService, transport),
    body: createClient(BodyService, transport),
    constraint: createClient(ConstraintService, transport),
    force: createClient(ForceService, transport),
  };
}

// "INVALID_ARGUMENT: constraint.distance.length: must be > 0 …", the way the
// server's other clients print errors.
export function describeError(err: unknown): string {
  const e = ConnectError.from(err);
  const name = Code[e.code]?.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase() ?? String(e.code);
  return `${name}: ${e.rawMessage}`;
}

export function errorCode(err: unknown): Code {
  return ConnectError.from(err).code;
}

export { Code };
