/** n8n public API v1 calls, with `X-N8N-API-KEY` on every request (cursor follow-ups included). */
import { createHttpClient, type HttpClient, type HttpClientOptions, type HttpResponse } from "../http/index.ts";
import { Listing, n8nCursor, type ListOptions } from "../paging/index.ts";
import type { ApiGeneration, Workflow } from "./types.ts";

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
  private generation?: Promise<ApiGeneration>;

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
   * n8n 1.x answers `/publish` with 405 whatever the id; 2.40+ routes it and answers an unknown id with
   * 404. Asked once per client; a 401 or 403 here surfaces a bad key or a missing scope before any change.
   */
  apiGeneration(signal?: AbortSignal): Promise<ApiGeneration> {
    this.generation ??= this.send("POST", `/workflows/${PROBE_ID}/publish`, "POST /workflows/:id/publish", signal, [404, 405]).then(
      (res): ApiGeneration => (res.status === 405 ? 1 : 2),
      (err: unknown) => {
        this.generation = undefined;
        throw err;
      },
    );
    return this.generation;
  }

  /** Idempotent on both generations: repeating an activation answers 200. */
  async setActive(id: string, active: boolean, signal?: AbortSignal): Promise<Workflow> {
    const generation = await this.apiGeneration(signal);
    const action = generation === 2 ? (active ? "publish" : "unpublish") : active ? "activate" : "deactivate";
    const res = await this.send("POST", `/workflows/${encodeURIComponent(id)}/${action}`, `POST /workflows/:id/${action}`, signal);
    return JSON.parse(res.text) as Workflow;
  }

  private send(method: "GET" | "POST", path: string, route: string, signal?: AbortSignal, accept?: number[]): Promise<HttpResponse> {
    return this.http.send({ method, url: new URL(this.base + path), route, headers: { accept: "application/json" }, accept, signal });
  }
}
