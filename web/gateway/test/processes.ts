// Starts the real programs for integration and end-to-end tests: linkaged
// and the built gateway, each on a free port it picks itself (port 0) and
// reports in its start-up line, so parallel test runs never collide.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface Running {
  process: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Sends SIGTERM (or `signal`) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface RunningLinkaged extends Running {
  /** host:port for gRPC clients and the gateway's --upstream. */
  address: string;
}

export interface RunningGateway extends Running {
  /** http://host:port/ */
  url: string;
}

export function linkagedPath(): string {
  return process.env.LINKAGED ?? resolve(repo, "build", "server", "linkaged");
}

export async function startLinkaged(args: string[] = []): Promise<RunningLinkaged> {
  const running = await start(linkagedPath(), ["--listen", "127.0.0.1:0", ...args], /listening on [^ ]+ \(port (\d+)\)/);
  return { ...running.running, address: `127.0.0.1:${running.match[1]}` };
}

export async function startGatewayProcess(upstream: string, args: string[] = []): Promise<RunningGateway> {
  const main = resolve(repo, "web", "gateway", "dist", "main.js");
  const running = await start(
    process.execPath,
    [main, "--upstream", upstream, "--listen", "127.0.0.1:0", ...args],
    /serving (http:\/\/\S+\/)/,
  );
  return { ...running.running, url: running.match[1] };
}

const startTimeoutMs = 10_000;

function start(command: string, args: string[], ready: RegExp): Promise<{ running: Running; match: RegExpMatchArray }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const running: Running = {
    process: child,
    output: () => output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${command} did not start in ${startTimeoutMs} ms:\n${output}`));
    }, startTimeoutMs);
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
    child.once("error", (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
}
