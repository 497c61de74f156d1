/** The outermost layer: any status the caller did not say it handles becomes a typed HttpError. */
import { HttpError, serviceMessage } from "./errors.ts";
import type { Redactor } from "../redact/index.ts";
import type { Layer } from "./types.ts";

export function statusLayer(redactor: Redactor): Layer {
  return (next) => async (req) => {
    const res = await next(req);
    if (res.status < 300 || req.accept?.includes(res.status)) return res;
    throw new HttpError({
      status: res.status,
      method: req.method,
      route: req.route,
      path: redactor.path(res.url),
      serviceMessage: redactor.text(serviceMessage(res.text)),
      headers: res.headers,
    });
  };
}
