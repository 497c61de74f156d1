/**
 * The claims8 review: "Every attempt has a deadline of 60 s (--request-timeout SECONDS) … a silent server is
 * named after 60 s at first contact" and "until it has answered once in the run, … an egress proxy's
 * refusal … or a timed-out attempt is not retried" (docs/talking-to-gitlab.md); Ctrl-C cancels the
 * requests in flight (docs/cli.md, Signals).
 *
 * Through an egress proxy (HTTPS_PROXY) that accepts the connection and never answers the CONNECT, none
 * of it held. lib/http/deadline.ts ends an attempt by aborting its signal, and lib/http/transport.ts's
 * exchange() passes that abort to undici only through the controller undici hands it in onRequestStart,
 * which comes once the request is written to a connection. The tunnel is undici's ProxyAgent's own
 * CONNECT (lib/dispatcher/proxy-agent.js), sent with no signal and the proxy client's default 300 s
 * headersTimeout; until it is up, the request sits queued, and the abort reaches nothing. Probed by hand:
 * `warden enforce --request-timeout 2` through such a proxy was still running 11 minutes on (a new
 * CONNECT every 300 s), and SIGTERM did not end it either. The exchange now ends at its signal whatever
 * undici does (lib/http/transport.ts), and the CLI exits once its report is written (bin/warden.ts).
 */
import { createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { policyFile, startWarden, type CliRun } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

let proxy: Server | undefined;
const sockets: Socket[] = [];
const connects: string[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  connects.length = 0;
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  proxy = undefined;
});

/** An egress proxy that takes the connection, reads the CONNECT, and never answers. */
async function silentProxy(): Promise<string> {
  proxy = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", (chunk: Buffer) => connects.push(chunk.toString("latin1").split("\r\n")[0]!));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
}

const STILL_RUNNING = "still running" as const;
async function endsWithin(run: ReturnType<typeof startWarden>, ms: number): Promise<CliRun | typeof STILL_RUNNING> {
  const result = await Promise.race([run.done, sleep(ms).then(() => STILL_RUNNING)]);
  if (result === STILL_RUNNING) run.kill("SIGKILL");
  return result;
}

describe("an egress proxy that takes the connection and never answers the CONNECT", () => {
  it("warden enforce --request-timeout 2 gives up at first contact within a few seconds, exit 1, naming the cause", async () => {
    const url = await silentProxy();
    const run = startWarden(["enforce", "--request-timeout", "2"], {
      GITLAB_URL: "https://gitlab.internal.test", GITLAB_TOKEN: "glpat-unusedunusedunused0", WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTPS_PROXY: url, HTTP_PROXY: url,
    });
    const result = await endsWithin(run, 12_000);
    expect(connects.some((line) => line.startsWith("CONNECT gitlab.internal.test:443")), "the CLI asked the proxy for a tunnel").toBe(true);
    expect(result, "still running 12 s on, though each attempt has a 2 s deadline and a timed-out attempt at first contact is not retried").not.toBe(STILL_RUNNING);
    expect((result as CliRun).code).toBe(1);
  }, 20_000);

  it("Ctrl-C stops it: the process ends within a few seconds", async () => {
    const url = await silentProxy();
    const run = startWarden(["enforce"], {
      GITLAB_URL: "https://gitlab.internal.test", GITLAB_TOKEN: "glpat-unusedunusedunused0", WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTPS_PROXY: url, HTTP_PROXY: url,
    });
    const end = Date.now() + 8_000;
    while (connects.length === 0 && Date.now() < end) await sleep(20);
    expect(connects.length, "the CLI asked the proxy for a tunnel").toBeGreaterThan(0);
    run.kill("SIGINT");
    const result = await endsWithin(run, 5_000);
    expect(result, "still running 5 s after Ctrl-C: the abort never reaches a request waiting for its tunnel").not.toBe(STILL_RUNNING);
    expect((result as CliRun).code).toBe(1);
  }, 20_000);
});
