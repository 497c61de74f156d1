import type { RetryStyle } from "./retry-headers.ts";

interface Target {
  /** A route key ("GET /projects") or template ("/projects"); omitted = any. */
  route?: string;
  method?: string;
  /** The request's own path ("/api/v4/projects/100/share/20"): one resource refused where others are not (a project the token is not Maintainer of). Omitted = any. */
  path?: string;
  /** Query parameters the request carries, each with this value (`{ id_before: "1501" }`: the pages of one id range of the instance). Omitted = any. */
  query?: Readonly<Record<string, string>>;
  /** How many matching requests this fault takes. */
  times: number;
}

export type Fault =
  | ({
      kind: "status";
      status: number;
      /** The answer's JSON `message` in place of "<status> <reason>": a proxy's or an upstream's own words. */
      message?: string;
      /** Only this many characters of the JSON body are sent: an answer a proxy cut short. */
      cutAt?: number;
    } & Target)
  /** Destroys the socket before answering. */
  | ({ kind: "drop" } & Target)
  | ({ kind: "delay"; ms: number } & Target)
  /** Performs the request (a mutation included), then answers `status` instead; if the request itself fails, that error goes out. */
  | ({ kind: "apply-then-status"; status: number } & Target)
  /** Performs the request, then destroys the socket: the answer to a committed change is lost. */
  | ({ kind: "apply-then-drop" } & Target)
  /** Performs the request, then answers its JSON body as `edit` returns it: a proxy (or a hostile GitLab) rewriting what was said. */
  | ({ kind: "rewrite"; edit: (body: unknown) => unknown } & Target)
  /** `seconds` (default 1) ahead, as Retry-After, an HTTP date, or RateLimit-Reset. */
  | ({ kind: "429"; headers: RetryStyle; seconds?: number } & Target);

/** Faults are taken in the order given, each by as many matching requests as its `times`. */
export class FaultQueue {
  private readonly queue: Fault[] = [];

  /** Faults not yet taken. */
  get pending(): number {
    return this.queue.length;
  }

  /** Drops every fault not yet taken: GitLab mended. */
  clear(): void {
    this.queue.length = 0;
  }

  add(faults: readonly Fault[]): void {
    // Copies, so that counting down never touches the caller's objects.
    for (const f of faults) if (f.times > 0) this.queue.push({ ...f });
  }

  take(method: string, routeKey: string, path?: string, rawQuery = ""): Fault | undefined {
    const template = routeKey.slice(routeKey.indexOf(" ") + 1);
    // Parsed only for a fault that asks (the simulator answers every benchmark request through here).
    let query: URLSearchParams | undefined;
    const carries = (wanted: Fault["query"]) => !wanted || Object.entries(wanted).every(([name, value]) => (query ??= new URLSearchParams(rawQuery)).get(name) === value);
    const index = this.queue.findIndex(
      (f) => (!f.method || f.method.toUpperCase() === method) && (!f.route || f.route === routeKey || f.route === template) && (!f.path || f.path === path) && carries(f.query),
    );
    const fault = this.queue[index];
    if (!fault) return undefined;
    if (--fault.times === 0) this.queue.splice(index, 1);
    return fault;
  }
}
