#!/usr/bin/env node
// linkage-gateway: reads its settings, serves until SIGTERM or SIGINT.
import { formatAddress, parseConfig, usage } from "./config.js";
import { startGateway } from "./gateway.js";

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`linkage-gateway: ${(error as Error).message}`);
    return 2;
  }
  if (parsed.help) {
    console.log(usage);
    return 0;
  }
  const { config } = parsed;
  const gateway = await startGateway(config);
  console.log(
    `linkage-gateway serving ${gateway.url} (linkaged at ${formatAddress(config.upstream)}, ` +
      `viewer from ${config.staticDir}, scenes from ${config.scenesDir})`,
  );
  if (gateway.metricsUrl) console.log(`linkage-gateway metrics at ${gateway.metricsUrl}`);
  // The handlers stay: a second signal during shutdown (Ctrl-C reaches a
  // whole process group, scripts/run.sh then sends SIGTERM) must not kill
  // the process before its streams are ended.
  const signal = await new Promise<NodeJS.Signals>((stop) => {
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
  console.log(`linkage-gateway: ${signal}, ending streams and shutting down`);
  await gateway.close();
  console.log("linkage-gateway: stopped");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("linkage-gateway:", error);
    process.exit(1);
  },
);
