/**
 * An error @middy/http-error-handler turns into a response with this status and message (it exposes
 * errors under 500); anything else becomes a bare 500, so no stack or internal message reaches a caller.
 */
export class HttpStatusError extends Error {
  override name = "HttpStatusError";
  readonly statusCode: number;

  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}
