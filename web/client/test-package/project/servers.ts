// linkaged and the web gateway for the tests, each on a free port it picks
// itself and reports in its start-up line. LINKAGED and LINKAGE_GATEWAY name
// the programs (the build's linkaged, web/gateway/dist/main.js).
import { spawn } from "node:child_process";

export interface Running {
  stop(): Promise<number | null>;
}

function start(command: string, args: string[], ready: RegExp): Promise<{ running: Running; match: RegExpMatchArray }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const running = {
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
  let output = "";
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${command} did not start in 10 s:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        done({ running, match });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must name the program to test`);
  return value;
}

export async function startLinkaged(): Promise<Running & { address: string }> {
  const { running, match } = await start(required("LINKAGED"), ["--listen", "127.0.0.1:0"], /listening on [^ ]+ \(port (\d+)\)/);
  return { ...running, address: `127.0.0.1:${match[1]}` };
}

export async function startGateway(upstream: string): Promise<Running & { url: string }> {
  const { running, match } = await start(
    process.execPath,
    [required("LINKAGE_GATEWAY"), "--upstream", upstream, "--listen", "127.0.0.1:0"],
    /serving (http:\/\/\S+)\//,
  );
  return { ...running, url: match[1] };
}
