// Connect clients for the tests: through the gateway with each browser
// protocol, and straight to linkaged for comparison.
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { BodyService, ConstraintService, ForceService, WorldService } from "@linkage/proto/service_pb";

export interface Clients {
  world: Client<typeof WorldService>;
  body: Client<typeof BodyService>;
  constraint: Client<typeof ConstraintService>;
  force: Client<typeof ForceService>;
}

export function clientsOf(transport: Transport): Clients {
  return {
    world: createClient(WorldService, transport),
    body: createClient(BodyService, transport),
    constraint: createClient(ConstraintService, transport),
    force: createClient(ForceService, transport),
  };
}

/** The gateway as a browser sees it: HTTP/1.1, Connect or gRPC-Web. */
export const browserProtocols = {
  connect: (url: string) => createConnectTransport({ baseUrl: url, httpVersion: "1.1" }),
  "connect+json": (url: string) => createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false }),
  "grpc-web": (url: string) => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" }),
};

export function direct(address: string): Clients {
  return clientsOf(createGrpcTransport({ baseUrl: `http://${address}` }));
}
