/** The outermost layer: any status the caller did not say it handles becomes a typed HttpError. */
import { httpError } from "./errors.ts";
import type { Redactor } from "../redact/index.ts";
import type { Layer } from "./types.ts";

export function statusLayer(redactor: Redactor): Layer {
  return (next) => async (req) => {
    const res = await next(req);
    if (res.status < 300 || req.accept?.includes(res.status)) return res;
    throw httpError(req, res, redactor);
  };
}
