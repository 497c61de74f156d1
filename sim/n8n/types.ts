/** A workflow as the simulator stores it; `hasTrigger` and `webhookConflict` steer activation and are never served. */
export interface SimWorkflow {
  id: string;
  name: string;
  active: boolean;
  isArchived: boolean;
  createdAt: string;
  updatedAt: string;
  tags: { id: string; name: string }[];
  hasTrigger: boolean;
  webhookConflict?: boolean;
  /** Always kept on generation 2; on generation 1 only served when set (n8n 1.123 has it). */
  activeVersionId?: string | null;
  /** The latest saved version (on 2.x a draft until published); the simulator gives one to a workflow without it (savedVersion). */
  versionId?: string;
  /** Records pinned in the editor (sample executions, often real data), served unless excludePinnedData; default one sample. */
  pinnedRecords?: number;
}

/** Injected failures, consumed in order by the requests whose route key matches (any route when `route` is unset). */
export type N8nFault =
  | { kind: "status"; status: number; route?: string; times: number }
  | { kind: "drop"; route?: string; times: number }
  | { kind: "429"; route?: string; times: number }
  | { kind: "delay"; ms: number; route?: string; times: number };

export type Generation = 1 | 2;

export interface N8nSimOptions {
  /** 1 = n8n 1.x, 2 = n8n 2.40+ */
  generation: Generation;
  /** Default `{ "n8n-sim-key": {} }`; a key without `scopes` has them all. */
  apiKeys?: Record<string, { scopes?: string[] }>;
  /** Default `generateWorkflows({ count: 40 })`. Copied, so one fixture can seed many sims. */
  workflows?: SimWorkflow[];
  latencyMs?: number;
  faults?: N8nFault[];
  /** Runs after each list page is sent, with that page's index within its listing (cursor offset / limit). */
  onListPage?: (pageIndex: number, sim: N8nSim) => void;
  recordRequests?: boolean;
  /** How a 1.x answers 2.x's publish routes: 405 (default, as the versions on record do) or 404 (as an OpenAPI layer answers a path it does not know). */
  publishRoutesStatus?: 404 | 405;
  /**
   * Whether GET /workflows declares `excludePinnedData` (default true: n8n 1.73 on). False plays an older
   * 1.x, whose OpenAPI layer refuses it as it refuses every query parameter its spec does not declare.
   */
  pinnedDataParam?: boolean;
}

export interface N8nCounters {
  requests: number;
  /** Keyed by route key, e.g. "GET /workflows"; "unmatched" for paths the API does not have. */
  byRoute: Record<string, number>;
  maxConcurrency: number;
  /** Keyed by status code, or "drop" for connections destroyed by a fault. */
  status: Record<string, number>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** As sent; "" for none. */
  body: string;
}

export interface N8nSim {
  /** "http://127.0.0.1:<port>"; the API lives under /api/v1. */
  url: string;
  apiKey: string;
  generation: Generation;
  /** Live state, sorted by id. */
  workflows: SimWorkflow[];
  /** Changes state as a person in the UI would: no API checks, no request counted. */
  setActive(id: string, active: boolean): void;
  /** Saves a new version as a person editing in the UI would (on 2.x a draft, the live version unchanged); returns its id. */
  saveDraft(id: string): string;
  /** Publishes a version (default: the latest saved) as a person in the UI would, even over one already live. */
  publish(id: string, versionId?: string): void;
  counters: N8nCounters;
  requests: RecordedRequest[];
  addFaults(...f: N8nFault[]): void;
  resetCounters(): void;
  close(): Promise<void>;
}
