/** n8n public API v1 calls, with `X-N8N-API-KEY` on every request (cursor follow-ups included). */
import { createHttpClient, type HttpClient, type HttpClientOptions, type HttpResponse } from "../http/index.ts";
import { Listing, n8nCursor, type ListOptions } from "../paging/index.ts";
import type { ApiGeneration, Workflow } from "./types.ts";

export interface ApiProbe {
  generation: ApiGeneration;
  /** n8n 2.x only (1.x enforces no scopes without a licence): whether the key may publish and unpublish. */
  scopes?: { activate: boolean; deactivate: boolean };
}

export interface N8nClientOptions extends Omit<HttpClientOptions, "origin" | "credentials"> {
  /** The instance address: scheme, host, port and an optional path, without /api/v1. */
  url: string;
  apiKey: string;
}

export interface WorkflowFilter {
  active?: boolean;
  tags?: string;
  name?: string;
  /** Page size, 1–250 (default 250). */
  limit?: number;
}

/** An id no workflow has: probing its publish route tells the API generation without side effects. */
const PROBE_ID = "warden-api-generation-probe";

export class N8nClient {
  readonly http: HttpClient;
  private readonly base: string;
  private probed?: Promise<ApiProbe>;

  constructor(opts: N8nClientOptions) {
    const base = new URL(opts.url);
    this.base = `${base.origin}${base.pathname.replace(/\/+$/, "")}/api/v1`;
    this.http = createHttpClient({ ...opts, origin: base.origin, credentials: { "X-N8N-API-KEY": opts.apiKey } });
  }

  /** Filters repeat on every page (the cursor keeps none); pinned data is never needed, so never sent. */
  listWorkflows(filter: WorkflowFilter = {}, list?: ListOptions): Listing<Workflow> {
    const url = new URL(`${this.base}/workflows`);
    if (filter.active !== undefined) url.searchParams.set("active", String(filter.active));
    if (filter.tags) url.searchParams.set("tags", filter.tags);
    if (filter.name) url.searchParams.set("name", filter.name);
    url.searchParams.set("excludePinnedData", "true");
    return new Listing(n8nCursor<Workflow>({ http: this.http, url, route: "GET /workflows", limit: filter.limit }), list);
  }

  async getWorkflow(id: string, signal?: AbortSignal): Promise<Workflow> {
    return JSON.parse((await this.send("GET", `/workflows/${encodeURIComponent(id)}`, "GET /workflows/:id", signal)).text) as Workflow;
  }

  /**
   * Which API generation this is, and (on 2.x) which activation scopes the key has, without side
   * effects: publishing and unpublishing an id no workflow has. n8n 1.x answers `/publish` with 405
   * whatever the id; 2.40+ checks the scope first (403) and then the id (404). Asked once per client.
   */
  probe(signal?: AbortSignal): Promise<ApiProbe> {
    this.probed ??= this.runProbe(signal).catch((err: unknown) => {
      this.probed = undefined;
      throw err;
    });
    return this.probed;
  }

  private async runProbe(signal?: AbortSignal): Promise<ApiProbe> {
    const attempt = async (action: "publish" | "unpublish") =>
      (await this.send("POST", `/workflows/${PROBE_ID}/${action}`, `POST /workflows/:id/${action}`, signal, [403, 404, 405])).status;
    const publish = await attempt("publish");
    if (publish === 405) return { generation: 1 };
    return { generation: 2, scopes: { activate: publish !== 403, deactivate: (await attempt("unpublish")) !== 403 } };
  }

  /** Idempotent on both generations: repeating an activation answers 200. */
  async setActive(id: string, active: boolean, signal?: AbortSignal): Promise<Workflow> {
    const { generation } = await this.probe(signal);
    const action = generation === 2 ? (active ? "publish" : "unpublish") : active ? "activate" : "deactivate";
    const res = await this.send("POST", `/workflows/${encodeURIComponent(id)}/${action}`, `POST /workflows/:id/${action}`, signal);
    return JSON.parse(res.text) as Workflow;
  }

  private send(method: "GET" | "POST", path: string, route: string, signal?: AbortSignal, accept?: number[]): Promise<HttpResponse> {
    return this.http.send({ method, url: new URL(this.base + path), route, headers: { accept: "application/json" }, accept, signal });
  }
}
