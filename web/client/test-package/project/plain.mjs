// The package as plain Node loads it (no bundler, no TypeScript, no Vitest):
// its exports map, its modules' own imports, and the stubs it carries.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { Client, LinkageError, Mirror, bodyRef } from "@linkage/client";
import { BodySchema } from "@linkage/client/proto/body_pb";
import { WorldService } from "@linkage/client/proto/service_pb";

assert.equal(BodySchema.typeName, "linkage.v1.Body");
assert.ok(WorldService.method.streamState);
assert.equal(bodyRef("bob").ref.value, "bob");
assert.equal(new Mirror().bodies.size, 0);
// A port nothing listens on: one the system just gave out and took back.
const closed = createServer();
await new Promise((done) => closed.listen(0, "127.0.0.1", done));
const port = closed.address().port;
await new Promise((done) => closed.close(done));
const err = await new Client({ baseUrl: `http://127.0.0.1:${port}` }).listWorlds().catch((e) => e);
assert.ok(err instanceof LinkageError, String(err));
assert.equal(err.codeName, "UNAVAILABLE");
console.log("plain Node: @linkage/client loads and answers", err.message);
