// Type-checked with the tests, never run: the declarations the package ships
// accept the README's example and refuse what the API would refuse.
import { Client, Mirror, bodyNames, bodyRef, vec } from "@linkage/client";
import { Motion } from "@linkage/client/proto/body_pb";

export async function readmeExample(): Promise<void> {
  const client = new Client({ baseUrl: "http://127.0.0.1:8080" });
  await client.createWorld("lab", { paused: true });
  await client.createBodies("lab", [
    { name: "pivot", motion: Motion.FIXED },
    { name: "bob", mass: 1, position: vec([1, 0]) },
  ]);
  const rod = await client.addConstraint("lab", "distance", { a: bodyRef("pivot"), b: bodyRef("bob") }, { name: "rod" });
  await client.updateConstraint("lab", rod, "distance", { length: 1.5 });
  await client.resume("lab");
  const mirror = new Mirror();
  for await (const s of mirror.follow(client.stream("lab", { rateHz: 30, diagnostics: true }))) {
    console.log(s.tick, mirror.position(bodyNames(mirror).get("bob")!), s.diagnostics?.maxError);
    if (s.tick > 600n) break;
  }
}

export async function refused(client: Client): Promise<void> {
  // @ts-expect-error: no such constraint type
  await client.addConstraint("lab", "distanc", {});
  // @ts-expect-error: a distance constraint has no ratio
  await client.addConstraint("lab", "distance", { ratio: 2 });
  // @ts-expect-error: a body's mass is a number
  await client.updateBody("lab", "bob", { mass: "2" });
  // @ts-expect-error: protocols are grpc-web and connect
  new Client({ baseUrl: "http://x", protocol: "grpc" });
}
