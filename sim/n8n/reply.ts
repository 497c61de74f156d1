/** What a route handler answers; the server turns it into an HTTP response. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Runs once the response has been written (the list-page test hook). */
  afterSend?: () => void;
}

export function message(status: number, text: string): Reply {
  return { status, body: { message: text } };
}

/**
 * The 400 n8n's request validator (express-openapi-validator) answers a query parameter its spec does not declare
 * (a misspelt filter is refused, not ignored), or undefined. `excludePinnedData` is declared on GET /workflows and
 * GET /workflows/:id alike from 1.73 (n8n-io/n8n#12261): `pinnedDataParam` false plays an older 1.x.
 */
export function undeclaredParameter(query: URLSearchParams, declared: readonly string[], pinnedDataParam = true): Reply | undefined {
  const names = pinnedDataParam ? [...declared, "excludePinnedData"] : declared;
  const unknown = [...query.keys()].find((name) => !names.includes(name));
  return unknown === undefined ? undefined : message(400, `Unknown query parameter '${unknown}'`);
}
