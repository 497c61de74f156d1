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
