import { createClient, ConnectError } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { WorldService } from "@linkage/proto/service_pb";
const d = createClient(WorldService, createGrpcTransport({ baseUrl: "http://127.0.0.1:50999" }));
const gw = () => createClient(WorldService, createConnectTransport({ baseUrl: "http://127.0.0.1:8099", httpVersion: "1.1" }));
const dd = () => createClient(WorldService, createGrpcTransport({ baseUrl: "http://127.0.0.1:50999" }));
const mk = process.argv[2] === "gw" ? gw : dd;
async function open() {
  const cancel = new AbortController();
  const frames = mk().streamState({ world: "default", rateHz: 10 }, { signal: cancel.signal })[Symbol.asyncIterator]();
  await frames.next();
  (async () => { while (!(await frames.next()).done); })().catch(() => {});
  return cancel;
}
const subs = async () => (await d.getWorld({ world: "default" })).world.subscribers;
for (let round = 0; round < 40; round++) {
  const s = await Promise.all([open(), open(), open(), open()]);
  let refused = false;
  try { await open(); } catch (e) { refused = ConnectError.from(e).code === 8; }
  s.forEach(c => c.abort());
  const t0 = Date.now(); let n;
  while ((n = await subs()) > 0 && Date.now() - t0 < 3000) await new Promise(r => setTimeout(r, 20));
  if (n > 0 || !refused) { console.log("round", round, "subscribers left", n, "refused", refused); process.exit(1); }
}
console.log("ok");
process.exit(0);
