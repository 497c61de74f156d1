/** n8n public API v1 calls, with `X-N8N-API-KEY` on every request (cursor follow-ups included). */
import { N8N_SETTINGS, N8N_TERMS } from "./settings.ts";
import { createServiceClient, HttpError, type HttpClient, type HttpClientOptions, type HttpResponse, type SettingNames } from "../http/index.ts";
import { Listing, n8nCursor, type ListOptions } from "../paging/index.ts";
import { isActive, WORKFLOW_FIELDS, type ApiGeneration, type Workflow } from "./types.ts";

export interface N8nClientOptions extends Omit<HttpClientOptions, "origin" | "credentials"> {
  /** The instance address: scheme, host, port and an optional path, without /api/v1. */
  url: string;
  apiKey: string;
  /** What errors call the address and the key: the CLI's N8N_URL and N8N_API_KEY unless told otherwise. */
  settingNames?: SettingNames;
}

export interface WorkflowFilter {
  active?: boolean;
  tags?: string;
  name?: string;
  /** Page size, 1–250 (default 250). */
  limit?: number;
}

/** The query parameter that leaves pinned data out of a listing. */
const PINNED_DATA = "excludePinnedData";

/** n8n's OpenAPI layer refusing a query parameter its spec does not declare: 400 "Unknown query parameter '<name>'". */
function unknownParameter(err: unknown, name: string): boolean {
  return err instanceof HttpError && err.status === 400 && err.serviceMessage.includes(`Unknown query parameter '${name}'`);
}

export class N8nClient {
  readonly http: HttpClient;
  private readonly base: string;
  private learned?: ApiGeneration;
  /** Whether GET /workflows takes `excludePinnedData` (listWorkflows): true until n8n refuses it. */
  private knowsPinnedData = true;
  /** A listing was answered with `excludePinnedData`: GET /workflows/:id takes it too (getWorkflow). */
  private takesPinnedData = false;

  constructor(opts: N8nClientOptions) {
    const base = new URL(opts.url);
    this.base = `${base.origin}${base.pathname.replace(/\/+$/, "")}/api/v1`;
    // A refused key, a wrong address: errors that name the setting to fix.
    this.http = createServiceClient({
      ...opts,
      origin: base.origin,
      credentials: { "X-N8N-API-KEY": opts.apiKey },
      apiPath: `${new URL(this.base).pathname}/`,
      address: base,
      terms: N8N_TERMS,
      names: opts.settingNames ?? N8N_SETTINGS,
    });
  }

  /**
   * Filters repeat on every page (the cursor keeps none). Pinned data is never needed, so it is left
   * out (`excludePinnedData`) where n8n knows the parameter: from 1.73 (n8n-io/n8n#12261). An older 1.x
   * refuses it, as it refuses any query parameter its OpenAPI spec does not declare: then the first
   * page is asked for again without it, and so is every later listing of this client.
   */
  listWorkflows(filter: WorkflowFilter = {}, list?: ListOptions): Listing<Workflow> {
    const url = new URL(`${this.base}/workflows`);
    if (filter.active !== undefined) url.searchParams.set("active", String(filter.active));
    if (filter.tags) url.searchParams.set("tags", filter.tags);
    if (filter.name) url.searchParams.set("name", filter.name);
    if (this.knowsPinnedData) url.searchParams.set(PINNED_DATA, "true");
    const pages = n8nCursor<Workflow>({ http: this.http, url, route: "GET /workflows", limit: filter.limit, fields: WORKFLOW_FIELDS });
    const fetch: typeof pages.fetch = async (position, signal) => {
      try {
        const page = await pages.fetch(position, signal);
        if (url.searchParams.has(PINNED_DATA)) this.takesPinnedData = true;
        return page;
      } catch (err) {
        if (position || !url.searchParams.has(PINNED_DATA) || !unknownParameter(err, PINNED_DATA)) throw err;
        this.knowsPinnedData = false;
        url.searchParams.delete(PINNED_DATA);
        return pages.fetch(position, signal);
      }
    };
    return new Listing({ ...pages, fetch }, list);
  }

  /**
   * Without its pinned data (sample executions, often real records, and often the largest part of a workflow)
   * once a listing has shown that n8n takes `excludePinnedData`: it declares it here from the same version as
   * on the listing (n8n-io/n8n#12261). Before any listing, it is not sent, as an older 1.x would refuse it.
   */
  async getWorkflow(id: string, signal?: AbortSignal): Promise<Workflow> {
    const query = this.takesPinnedData ? `?${PINNED_DATA}=true` : "";
    return (await this.send("GET", `/workflows/${encodeURIComponent(id)}${query}`, "GET /workflows/:id", signal)).json as Workflow;
  }

  /** Undefined until the first activation change, which learns it (see setActive). */
  get apiGeneration(): ApiGeneration | undefined {
    return this.learned;
  }

  /**
   * With `versionId`, an activation names the version to publish: n8n 2.x publishes the one its body names,
   * else its latest saved one, even over a version already published (`activateWorkflow`), so a repeated
   * activation is not harmless there: callers read the workflow first (lib/jobs/workflows/apply.ts). n8n
   * 1.x's `/activate` reads no body (its OpenAPI spec declares none, and its validator lets one by) and
   * answers a repeated activation with the workflow unchanged, as both answer a repeated deactivation.
   * The generation is learned by the first change itself, never by a request of its own, so a run that changes nothing sends
   * nothing but reads: that change goes to 2.x's route (`/publish`, `/unpublish`), and n8n 1.x, which
   * has no such route, answers 405 before looking at the id or the key; the change then goes to
   * `/activate` or `/deactivate`. A 404 there is either: 2.x's for a workflow gone or refused to the
   * key's user, or a 1.x whose OpenAPI layer answers a path it does not know with 404, not 405. The
   * 1.x route tells them apart (2.x still answers it): made there, it is a 1.x; refused there too, the
   * first answer stands and nothing is learned. Callers make their first change alone, so that it is
   * learned once. Only n8n's own answer teaches it: a 5xx or a 429 (a proxy's, a restart's) says
   * nothing of the routes, so the change fails and the next one asks again, rather than send every
   * later change of a 1.x run to routes it does not have.
   */
  async setActive(id: string, active: boolean, signal?: AbortSignal, versionId?: string): Promise<Workflow> {
    const change = { id, active, versionId };
    if (this.learned !== undefined) return this.activation(change, this.learned, signal);
    try {
      const workflow = await this.activation(change, 2, signal);
      this.learned = 2;
      return workflow;
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.status === 405) {
        this.learned = 1;
        return this.activation(change, 1, signal);
      }
      if (err.status === 404) return this.afterNotFound(change, err, signal);
      // A 4xx other than 405 (and 429) comes from a route that exists: 2.x, whatever else went wrong.
      if (err.status < 500 && err.status !== 429) this.learned = 2;
      throw err;
    }
  }

  /** The first change's 2.x route answered 404: its 1.x route says whether this is a 1.x (setActive). */
  private async afterNotFound(change: Change, notFound: HttpError, signal?: AbortSignal): Promise<Workflow> {
    try {
      const workflow = await this.activation(change, 1, signal);
      this.learned = 1;
      return workflow;
    } catch (err) {
      // A 405 there is an n8n without 1.x's routes: a 2.x (or later), whose 404 stands.
      if (err instanceof HttpError && err.status === 405) this.learned = 2;
      if (err instanceof HttpError && (err.status === 404 || err.status === 405)) throw notFound;
      throw err;
    }
  }

  private async activation({ id, active, versionId }: Change, generation: ApiGeneration, signal?: AbortSignal): Promise<Workflow> {
    const action = generation === 2 ? (active ? "publish" : "unpublish") : active ? "activate" : "deactivate";
    const body = versionId === undefined ? undefined : JSON.stringify({ versionId });
    const res = await this.send("POST", `/workflows/${encodeURIComponent(id)}/${action}`, `POST /workflows/:id/${action}`, signal, body);
    const denied = contradiction(res.json, id, active);
    if (denied) throw new Error(`n8n answered 200 to POST /workflows/:id/${action}, but ${denied}: the change is not taken as made`);
    return res.json as Workflow;
  }

  private send(method: "GET" | "POST", path: string, route: string, signal?: AbortSignal, body?: string): Promise<HttpResponse> {
    const headers: Record<string, string> = body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" };
    return this.http.send({ method, url: new URL(this.base + path), route, headers, body, expect: "json", fields: { keep: WORKFLOW_FIELDS }, signal });
  }
}

/** One activation change: the workflow, the state asked for and, to publish, the version (setActive). */
interface Change {
  id: string;
  active: boolean;
  versionId?: string;
}

/**
 * What an activation's 200 (or the workflow read back after a lost answer) says against the change asked
 * for, if anything. Every n8n answers with the workflow as it now is, its id and its `active` (2.x's
 * `activeVersionId` too), so an answer that is no workflow (none, `{}`, a gateway's `{"status":"ok"}`), one
 * about another workflow, or one still in the state the change was to leave (a proxy's answer, a server's
 * lie) is no change made.
 */
export function contradiction(answer: unknown, id: string, active: boolean): string | undefined {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return "with no workflow";
  const workflow = answer as Partial<Workflow>;
  if (workflow.id !== id) return "id" in workflow ? "about another workflow" : "with no workflow";
  if (!("active" in workflow || "activeVersionId" in workflow)) return "without saying whether the workflow is active";
  if (isActive(workflow as Workflow) !== active) return `with the workflow still ${active ? "inactive" : "active"}`;
  return undefined;
}
