import { createServer, STATUS_CODES } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { AuditLog, updateGroupShare } from "./audit-log.ts";
import type { RequestContext } from "./context.ts";
import type { GitLabDataset, SimAuditEvent, SimProject, SimUser, Tier } from "./dataset.ts";
import { FaultQueue } from "./faults.ts";
import type { Fault } from "./faults.ts";
import { generateOrganisation } from "./generate.ts";
import { apiError, HttpError, notFound, readBody, send, serialise } from "./http.ts";
import type { Reply } from "./http.ts";
import { parseParams } from "./query.ts";
import { RateLimiter } from "./rate-limit.ts";
import type { RateLimitRule } from "./rate-limit.ts";
import { retryHeaders, tooManyRequests } from "./retry-headers.ts";
import type { SimNotes } from "./notes-store.ts";
import { protectedBranches, protectedTags } from "./protected-refs.ts";
import type { SimRepositories } from "./repository-store.ts";
import type { SimWork } from "./work-store.ts";
import { matchRoute } from "./routes.ts";
import { Store } from "./store.ts";
import { TokenBucket, type TokenBucketOptions } from "./token-bucket.ts";
import type { Caller, Pipeline } from "./store.ts";

export interface GitLabSimOptions {
  /** Default: generateOrganisation({ projects: 200 }).dataset. */
  dataset?: GitLabDataset;
  /**
   * Default { "glpat-sim-admin": { admin: true } }. An auditor reads everything (private groups and
   * their shares included) and changes only groups it owns (SimGroup.owners, by username).
   */
  tokens?: Record<string, { admin: boolean; auditor?: boolean; username?: string; name?: string; /** false: an administrator's token acting as a plain user (Admin Mode on). */ adminModeScope?: false }>;
  /** Default "premium". A "free" instance has no audit events: it answers their routes 403 (EE unlicensed, the default) or 404 (CE). */
  tier?: Tier;
  freeAuditStatus?: 403 | 404;
  /** The simulator's clock for new audit events and stored issues' times (default Date.now). */
  clock?: () => number;
  /** Each answer's time from the request's arrival, the simulator's own work within it (default 0). */
  latencyMs?: number;
  /** Maximum offset of offset pagination on GET /projects (default 50,000). */
  offsetLimit?: number;
  /**
   * Default "full". "none": projects carry no `visibility` and a group's project listing ignores the
   * `visibility` filter, as a server that does not know it would; "unfiltered": projects carry it, but
   * the filter is ignored (the client must notice).
   */
  projectVisibility?: "full" | "unfiltered" | "none";
  /**
   * Default true. false: `GET /groups/:id` embeds no projects, whatever `with_projects` says (as API v5
   * plans); "empty": it embeds empty lists (a broken server or proxy, which the client must notice).
   */
  detailProjects?: boolean | "empty";
  /** Default true. false: tags carry no `protected` field, as GitLab's did before it was added. */
  tagProtectedField?: boolean;
  /** Raw query strings longer than this get 414 (default 8,192). */
  maxQueryLength?: number;
  rateLimits?: RateLimitRule[];
  /** A front proxy's limit over every request (token-bucket.ts): bare 429s past it. */
  tokenBucket?: TokenBucketOptions;
  faults?: Fault[];
  /** Keep method, url and headers of every request in `requests`. */
  recordRequests?: boolean;
}

export interface SimCounters {
  requests: number;
  /** By route key ("GET /projects/:id"); requests matching no route count as "<METHOD> *". */
  byRoute: Record<string, number>;
  maxConcurrency: number;
  inFlight: number;
  /** By status code; dropped connections count as "dropped". */
  status: Record<string, number>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** When it arrived (Date.now()). */
  at: number;
}

/** What a `beforeAnswer` hook learns of a request. */
export interface AnswerHookRequest {
  method: string;
  /** The route key counters use ("GET /groups/:id/projects"), or "<METHOD> *". */
  route: string;
  url: URL;
  /** Which request this is, from 1, in order of arrival; it numbers as `counters.requests` does (resetCounters restarts it). */
  n: number;
}

export type AnswerHook = (req: AnswerHookRequest) => void;

export interface GitLabSim {
  /** "http://127.0.0.1:<port>", without /api/v4. */
  url: string;
  /** The first admin token. */
  token: string;
  /** Live state: unshares mutate it. */
  dataset: GitLabDataset;
  /** Every audit event recorded, seeded ones first, in id order (live). */
  auditEvents: SimAuditEvent[];
  /**
   * Raises (or lowers) a group's share as the token's user would in GitLab's UI (which has no REST
   * route for it), recording `group_share_with_group_link_updated` on the sharing group.
   */
  updateGroupShare(groupId: number, invitedId: number, access: number, token: string): void;
  /** Every pipeline created, in order. */
  pipelines: Pipeline[];
  counters: SimCounters;
  requests: RecordedRequest[];
  addFaults(...faults: Fault[]): void;
  /** How many added faults no request has taken yet. */
  pendingFaults(): number;
  /** Drops the faults no request has taken yet. */
  clearFaults(): void;
  /** Replaces the rules and starts every window afresh. */
  setRateLimits(rules: RateLimitRule[]): void;
  /**
   * GitLab's project transfer into a group (Store.moveProject); the moved project. With `token`, made
   * by that token's user, recording `project_namespace_updated` on the project as GitLab does.
   */
  moveProject(projectId: number, groupId: number, token?: string): SimProject;
  /** A project's path changed in its own group (Store.renameProject): the old path redirects, as after a move. */
  renameProject(projectId: number, path: string): SimProject;
  /** A new, empty project at a path in a group (Store.createProject), taking it over from one that moved away. */
  createProject(groupId: number, path: string): SimProject;
  /** Files committed to projects' repositories (repository-store.ts): `repositories.commit(project, files, branch?)`. */
  repositories: SimRepositories;
  /** Issues and merge requests created through the API (work-store.ts). */
  work: SimWork;
  /** Protected-branch rules (protected-refs.ts): `protectedBranches.protect(project, "release/*")`, `unprotect`. */
  protectedBranches: typeof protectedBranches;
  /** Protected-tag rules (protected-refs.ts): `protectedTags.protect(project, "v*", { developersCanCreate })`. */
  protectedTags: typeof protectedTags;
  /** The seeded merge requests' notes (notes.ts): `notes.of(projectId, iid)`, `notes.add(…)` to plant one. */
  notes: SimNotes;
  /**
   * Runs `hook` for every request, before anything of its answer is worked out, so a change the
   * hook makes (a move, a share) is what that request sees. Hooks run in the order added.
   * Returns the function that removes it.
   */
  beforeAnswer(hook: AnswerHook): () => void;
  /** Zeroes the counters and forgets recorded requests. */
  resetCounters(): void;
  close(): Promise<void>;
}

const DEFAULT_TOKENS: NonNullable<GitLabSimOptions["tokens"]> = { "glpat-sim-admin": { admin: true } };
const DROP = Symbol("drop");

/** The GitLab REST v4 simulator on 127.0.0.1 and a free port. */
export async function startGitLabSim(opts: GitLabSimOptions = {}): Promise<GitLabSim> {
  const store = new Store(opts.dataset ?? generateOrganisation({ projects: 200 }).dataset, opts.clock);
  const tokens = opts.tokens ?? DEFAULT_TOKENS;
  const callers = resolveCallers(tokens, store.dataset.users);
  for (const caller of callers.values()) store.addUser(caller);
  const audit = { log: new AuditLog(store.dataset.auditEvents, opts.clock), tier: opts.tier ?? "premium", freeStatus: opts.freeAuditStatus ?? 403 } as const;
  const limiter = new RateLimiter(opts.rateLimits);
  const faults = new FaultQueue();
  faults.add(opts.faults ?? []);
  const bucket = opts.tokenBucket && new TokenBucket(opts.tokenBucket);
  const latencyMs = opts.latencyMs ?? 0;
  const offsetLimit = opts.offsetLimit ?? 50_000;
  const maxQueryLength = opts.maxQueryLength ?? 8_192;
  const counters: SimCounters = { requests: 0, byRoute: {}, maxConcurrency: 0, inFlight: 0, status: {} };
  const requests: RecordedRequest[] = [];
  const hooks: AnswerHook[] = [];
  let baseUrl = "";

  async function respond(req: IncomingMessage, n: number, timing: { due: number }): Promise<Reply | typeof DROP> {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const rawPath = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? "" : url.slice(q + 1);
    const match = matchRoute(method, rawPath);
    const key = match?.route.key ?? `${method} *`;
    counters.byRoute[key] = (counters.byRoute[key] ?? 0) + 1;
    // Hooks run as the request reaches GitLab, before the front proxy, faults, authentication and rate
    // limits, so they see every request, refused ones included. A copy, in case a hook removes itself.
    for (const hook of [...hooks]) hook({ method, route: key, url: new URL(`${baseUrl}${url}`), n });
    // The order mirrors GitLab's layers: the front proxy (414, network faults), then the API.
    if (rawQuery.length > maxQueryLength) return { status: 414, body: "Request-URI Too Large" };
    const throttled = bucket?.take();
    if (throttled) return throttled;
    const fault = faults.take(method, key, rawPath, rawQuery);
    switch (fault?.kind) {
      case "drop":
        return DROP;
      case "delay":
        await sleep(fault.ms);
        timing.due += fault.ms;
        break;
      case "status":
        return statusReply(fault.status, fault.message, fault.cutAt);
      case "429": {
        const now = Date.now();
        return tooManyRequests(retryHeaders(fault.headers, now + (fault.seconds ?? 1) * 1000, now));
      }
    }
    if (!match) return notFound().reply;
    const token = firstValue(req.headers["private-token"]);
    const caller = token === undefined ? null : callers.get(token);
    if (caller === undefined || (caller === null && !match.route.anonymous)) return apiError(401, "401 Unauthorized").reply;
    const limit = limiter.check(key, token ?? null);
    if ("reject" in limit) return limit.reject;
    const ctx: RequestContext = {
      method,
      rawPath,
      rawQuery,
      params: Object.assign(Object.create(null), parseParams(rawQuery), await bodyParams(req)),
      path: match.path,
      caller,
      store,
      baseUrl,
      offsetLimit,
      projectVisibility: opts.projectVisibility ?? "full",
      detailProjects: opts.detailProjects ?? true,
      tagProtectedField: opts.tagProtectedField ?? true,
      audit,
    };
    const reply = match.route.handler(ctx);
    if (fault?.kind === "apply-then-status") return statusReply(fault.status);
    if (fault?.kind === "apply-then-drop") return DROP;
    const body = fault?.kind === "rewrite" ? fault.edit(reply.body) : reply.body;
    return { ...reply, body, headers: { ...limit.headers, ...reply.headers } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const n = ++counters.requests;
    counters.inFlight++;
    counters.maxConcurrency = Math.max(counters.maxConcurrency, counters.inFlight);
    res.on("close", () => counters.inFlight--);
    if (opts.recordRequests) requests.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: { ...req.headers }, at: Date.now() });
    let reply: Reply | typeof DROP;
    // The latency is the answer's time as the client sees it, the simulator's own work within it (as a
    // server's is within its response time): a round of many requests on the simulator's one thread
    // is answered no later than one request would be, unless the work outlasts the latency. A delay
    // fault adds to it.
    const timing = { due: performance.now() + latencyMs };
    try {
      reply = await respond(req, n, timing);
    } catch (error) {
      if (!(error instanceof HttpError)) console.error("gitlab sim:", error);
      reply = error instanceof HttpError ? error.reply : statusReply(500);
    }
    // Serialised now, as the state stands when the request arrived (a body may hold the dataset's own objects).
    const wire = reply === DROP ? DROP : serialise(reply);
    const left = timing.due - performance.now();
    if (left > 0) await sleep(left);
    const outcome = wire === DROP ? "dropped" : String(wire.status);
    counters.status[outcome] = (counters.status[outcome] ?? 0) + 1;
    if (wire === DROP) req.socket.destroy();
    else send(res, wire);
  }

  // Large headers are allowed so that long query strings reach the 414 check instead of Node's 431.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    token: Object.keys(tokens).find((t) => tokens[t]!.admin) ?? Object.keys(tokens)[0] ?? "",
    dataset: store.dataset,
    pipelines: store.pipelines,
    auditEvents: audit.log.events,
    updateGroupShare: (groupId, invitedId, access, token) => updateGroupShare(store, audit.log, callers.get(token), groupId, invitedId, access),
    counters,
    requests,
    addFaults: (...f) => faults.add(f),
    pendingFaults: () => faults.pending,
    clearFaults: () => faults.clear(),
    setRateLimits: (rules) => limiter.set(rules),
    moveProject(projectId, groupId, token) {
      const caller = token === undefined ? undefined : callers.get(token);
      if (token !== undefined && !caller) throw new Error(`moveProject: no token ${token}`);
      const from = store.dataset.projects.find((p) => p.id === projectId)?.path_with_namespace;
      const moved = store.moveProject(projectId, groupId);
      if (caller && from) audit.log.projectTransferred(caller, moved, from);
      return moved;
    },
    renameProject: (projectId, path) => store.renameProject(projectId, path),
    createProject: (groupId, path) => store.createProject(groupId, path),
    repositories: store.repositories,
    work: store.work,
    protectedBranches,
    protectedTags,
    notes: store.notes,
    beforeAnswer(hook) {
      // A fresh entry per call, so removing one registration leaves others of the same function.
      const entry: AnswerHook = (r) => hook(r);
      hooks.push(entry);
      return () => {
        const at = hooks.indexOf(entry);
        if (at >= 0) hooks.splice(at, 1);
      };
    },
    resetCounters() {
      Object.assign(counters, { requests: 0, byRoute: {}, maxConcurrency: counters.inFlight, status: {} });
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function statusReply(status: number, message = `${status} ${STATUS_CODES[status] ?? "Error"}`, cutAt?: number): Reply {
  const { reply } = apiError(status, message);
  return cutAt === undefined ? reply : { ...reply, body: JSON.stringify(reply.body).slice(0, cutAt), headers: { ...reply.headers, "content-type": "application/json" } };
}

const firstValue = (header: string | string[] | undefined): string | undefined => (Array.isArray(header) ? header[0] : header);

/** JSON or form bodies of POST and PUT; other bodies are not read. */
async function bodyParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (req.method !== "POST" && req.method !== "PUT") return {};
  const text = await readBody(req);
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("application/x-www-form-urlencoded")) return parseParams(text);
  if (!type.startsWith("application/json") || text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw apiError(400, "400 Bad request - JSON parse error");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw apiError(400, "400 Bad request - body must be a JSON object");
  return body as Record<string, unknown>;
}

/** Token → who it is: a dataset user of that username, else a synthetic one ("root" is id 1). */
function resolveCallers(tokens: NonNullable<GitLabSimOptions["tokens"]>, users: readonly SimUser[]): Map<string, Caller> {
  const ids = new Map<string, number>([["root", 1], ...users.map((u): [string, number] => [u.username, u.id])]);
  let nextId = Math.max(1, ...ids.values()) + 1;
  const callers = new Map<string, Caller>();
  const names = new Map(users.map((u) => [u.username, u.name]));
  for (const [token, { admin, auditor, adminModeScope, username = admin ? "root" : "sim-user", name = names.get(username) }] of Object.entries(tokens)) {
    if (!ids.has(username)) ids.set(username, nextId++);
    const userOnly = admin && adminModeScope === false;
    callers.set(token, { id: ids.get(username)!, username, ...(name === undefined ? {} : { name }), is_admin: admin && !userOnly, ...(auditor === undefined ? {} : { is_auditor: auditor }), ...(userOnly && { adminUserOnly: true as const }) });
  }
  return callers;
}
