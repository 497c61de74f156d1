import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { changeActivation } from "./activation.ts";
import { dialects } from "./dialect.ts";
import { applyFault, takeFault } from "./faults.ts";
import { generateWorkflows } from "./generate.ts";
import { getWorkflow } from "./get-workflow.ts";
import { listWorkflows } from "./list.ts";
import { message, type Reply } from "./reply.ts";
import { matchRoute, requiredScope, type Route } from "./routes.ts";
import { applyActive, initialState, publishVersion, savedVersion, saveDraft } from "./state.ts";
import type { N8nCounters, N8nSim, N8nSimOptions, SimWorkflow } from "./types.ts";

const DEFAULT_API_KEY = "n8n-sim-key";

/** Starts an n8n public API on 127.0.0.1 (random port) speaking the chosen generation's dialect. */
export async function startN8nSim(opts: N8nSimOptions): Promise<N8nSim> {
  const dialect = dialects[opts.generation];
  const apiKeys = opts.apiKeys ?? { [DEFAULT_API_KEY]: {} };
  // Copies, because takeFault counts down `times` and callers may reuse their fault lists.
  const faults = (opts.faults ?? []).map((f) => ({ ...f }));
  let inFlight = 0;

  const server = createServer((req, res) => {
    inFlight += 1;
    sim.counters.maxConcurrency = Math.max(sim.counters.maxConcurrency, inFlight);
    res.on("close", () => {
      inFlight -= 1;
    });
    handle(req, res).catch((error: unknown) => {
      // After the headers only the onListPage hook can throw: surface it to the test run instead of hiding it.
      if (res.headersSent) throw error;
      send(res, message(500, `Simulator error: ${String(error)}`));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = matchRoute(method, url.pathname);
    const routeKey = route?.key ?? "unmatched";
    sim.counters.requests += 1;
    bump(sim.counters.byRoute, routeKey);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (opts.recordRequests) sim.requests.push({ method, url: req.url ?? "/", headers: { ...req.headers }, body });

    if (opts.latencyMs) await sleep(opts.latencyMs);
    const fault = takeFault(faults, routeKey);
    const faulted = fault && (await applyFault(fault));
    if (faulted === "drop") {
      bump(sim.counters.status, "drop");
      req.socket.destroy();
      return;
    }
    send(res, faulted ?? answer(route, req, url.searchParams, body));
  }

  /** Route checks in n8n's order: unknown path, then authentication, then the key's scope. */
  function answer(route: Route | null, req: IncomingMessage, query: URLSearchParams, body: string): Reply {
    if (!route) return message(404, "not found");
    // 1.x has no such path; its OpenAPI layer rejects it before looking at the key.
    if ("verb" in route && !dialect.hasPublishRoutes && (route.verb === "publish" || route.verb === "unpublish")) {
      return opts.publishRoutesStatus === 404 ? message(404, "not found") : message(405, "POST method not allowed");
    }
    const key = req.headers["x-n8n-api-key"];
    const grant = typeof key === "string" && Object.hasOwn(apiKeys, key) ? apiKeys[key] : undefined;
    if (!grant) return message(401, dialect.unauthorizedMessage(Boolean(key)));
    if (dialect.enforcesScopes && grant.scopes && !grant.scopes.includes(requiredScope(route))) {
      return message(403, "Forbidden");
    }
    switch (route.key) {
      case "GET /workflows":
        return listWorkflows(query, sim.workflows, dialect, (pageIndex) => opts.onListPage?.(pageIndex, sim), opts.pinnedDataParam);
      case "GET /workflows/:id":
        return getWorkflow(route.id, query, sim.workflows, dialect, opts.pinnedDataParam);
      default:
        return changeActivation(route, sim.workflows, dialect, body);
    }
  }

  function send(res: ServerResponse, reply: Reply): void {
    if (res.destroyed) return; // the client went away or the sim was closed meanwhile
    const body = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      ...reply.headers,
    });
    res.end(body);
    bump(sim.counters.status, String(reply.status));
    // Synchronously, so the hook's state change lands before the client can ask for the next page.
    reply.afterSend?.();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const sim: N8nSim = {
    url: `http://127.0.0.1:${port}`,
    apiKey: Object.keys(apiKeys)[0] ?? "",
    generation: opts.generation,
    workflows: initialState(opts.workflows ?? generateWorkflows({ count: 40 }), dialect),
    setActive(id, active) {
      applyActive(stored(id), active, dialect);
    },
    saveDraft(id) {
      return saveDraft(stored(id));
    },
    publish(id, versionId) {
      const wf = stored(id);
      publishVersion(wf, versionId ?? savedVersion(wf), dialect);
    },
    counters: emptyCounters(),
    requests: [],
    addFaults(...more) {
      faults.push(...more.map((f) => ({ ...f })));
    },
    resetCounters() {
      Object.assign(sim.counters, emptyCounters(), { maxConcurrency: inFlight });
      sim.requests.length = 0;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };

  /** The workflow of this id, as a test's UI-style change names it. */
  function stored(id: string): SimWorkflow {
    const wf = sim.workflows.find((w) => w.id === id);
    if (!wf) throw new Error(`n8n sim: no workflow ${id}`);
    return wf;
  }

  return sim;
}

function emptyCounters(): N8nCounters {
  return { requests: 0, byRoute: {}, maxConcurrency: 0, status: {} };
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
