/**
 * The plumbing every GitLab call goes through: one lib/http client per run (its errors naming the
 * settings GitLab was reached with), paths filled and queries encoded by the spec's rules, listings
 * through lib/paging. The endpoints themselves are GitLabClient's (client.ts).
 */
import { GITLAB_SETTINGS, GITLAB_TERMS } from "./settings.ts";
import { createServiceClient, httpError, type HttpClient, type HttpClientOptions, type HttpError, type HttpResponse, type Method, type SettingNames } from "../http/index.ts";
import { gitlabListing, type ListOptions, type Listing, type ListingOrder } from "../paging/index.ts";
import { fillPath, serializeQuery, type PathParams, type Query } from "./encode.ts";
import type { RequestCounts } from "./types.ts";

export interface GitLabClientOptions extends Omit<HttpClientOptions, "origin" | "credentials"> {
  /** Scheme and host (and a path prefix if GitLab is served under one), without /api/v4. */
  url: string;
  token: string;
  /** What errors call the address and the token: the CLI's GITLAB_URL and GITLAB_TOKEN unless told otherwise. */
  settingNames?: SettingNames;
  /** GitLab answers longer query strings with 414. */
  maxQueryLength?: number;
}

/** A group's detail: what each group shares costs (requestCounts). */
export const GROUP_DETAIL = "/groups/:id";

export interface CallOptions {
  query?: Query;
  body?: unknown;
  accept?: readonly number[];
  signal?: AbortSignal;
}

export interface ListCall {
  query?: Query;
  order?: ListingOrder;
  list?: ListOptions;
}

/**
 * The GitLab instance a URL names: its origin and path prefix (GitLab under a relative URL), with no
 * trailing slash, query or credential. What plans, reports and audit lines record, so that two
 * instances on one host (https://git.example.com/staging and /prod) are never taken for one.
 */
export function instanceUrl(url: string | URL): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

export class GitLabApi {
  readonly http: HttpClient;
  readonly basePath: string;
  /** instanceUrl of the client's GITLAB_URL. */
  readonly instanceUrl: string;
  private readonly maxQueryLength: number;

  constructor(opts: GitLabClientOptions) {
    const base = new URL(opts.url);
    this.basePath = `${base.pathname.replace(/\/+$/, "")}/api/v4`;
    this.instanceUrl = instanceUrl(base);
    this.maxQueryLength = opts.maxQueryLength ?? 8_000;
    // A refused token, a wrong address: errors that name the setting to fix.
    this.http = createServiceClient({
      ...opts,
      origin: base.origin,
      credentials: { "PRIVATE-TOKEN": opts.token },
      apiPath: `${this.basePath}/`,
      address: base,
      terms: GITLAB_TERMS,
      names: opts.settingNames ?? GITLAB_SETTINGS,
    });
  }

  /** Requests sent so far, group details apart: GET /groups/:id is the endpoint GitLab.com limits to 400 a minute. */
  requestCounts(): RequestCounts {
    const { requests, retries, rateLimited, pages, byRoute } = this.http.stats.totals;
    return { requests, retries, rateLimited, pages, groupReads: byRoute[`GET ${GROUP_DETAIL}`]?.requests ?? 0 };
  }

  /** One call. POST and PUT send their parameters as a JSON body, so they can never hit the 414 limit. */
  async call<T>(method: Method, template: string, params: PathParams, opts: CallOptions = {}): Promise<{ status: number; data: T; response: HttpResponse }> {
    const query = opts.query ? serializeQuery(opts.query) : "";
    if (query.length > this.maxQueryLength) {
      throw new Error(`${method} ${template}: query string of ${query.length} characters would be refused (414); send it in a body`);
    }
    const url = new URL(this.http.origin + this.basePath + fillPath(template, params) + (query ? `?${query}` : ""));
    const response = await this.http.send({
      method,
      url,
      route: `${method} ${template}`,
      headers: opts.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      accept: opts.accept,
      expect: "json",
      signal: opts.signal,
    });
    return { status: response.status, data: response.json as T, response };
  }

  async get<T>(template: string, params: PathParams = {}, opts: CallOptions = {}): Promise<T> {
    return (await this.call<T>("GET", template, params, opts)).data;
  }

  /** A lazy listing; keyset where GitLab supports it for this path and order, offset elsewhere. */
  list<T extends { id: number }>(template: string, params: PathParams, call: ListCall = {}): Listing<T> {
    return gitlabListing<T>(
      {
        http: this.http,
        basePath: this.basePath,
        path: fillPath(template, params),
        query: call.query ? serializeQuery(call.query) : undefined,
        route: `GET ${template}`,
        order: call.order,
        authenticated: true,
      },
      call.list,
    );
  }

  /** The HttpError for an answer accepted to be read, then refused: lib/http's own, from redacted parts. */
  protected refusal(method: Method, template: string, response: HttpResponse): HttpError {
    return httpError({ method, route: `${method} ${template}`, url: response.url }, response, this.http.redactor);
  }

  protected async find<T>(template: string, params: PathParams, missing: RegExp, signal?: AbortSignal): Promise<T | undefined> {
    const { status, data, response } = await this.call<T | { message?: unknown } | undefined>("GET", template, params, { accept: [404], signal });
    if (status !== 404) return data as T;
    if (!missing.test(String((data as { message?: unknown } | undefined)?.message))) throw this.refusal("GET", template, response);
    return undefined;
  }
}
