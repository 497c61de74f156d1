/**
 * Preloaded into a CLI child (NODE_OPTIONS=--import) by tests that need a host that is not this
 * machine by its name, yet answers here: every name under `.remote.test` resolves to 127.0.0.1 in
 * that child alone. Warden judges the URL's host as written (`gitlab.remote.test` is remote to it),
 * while every byte stays on loopback; other names resolve as usual.
 */
import dns from "node:dns";

const lookup = dns.lookup;
dns.lookup = function (host, options, callback) {
  if (typeof options === "function") [callback, options] = [options, {}];
  if (typeof host !== "string" || !host.endsWith(".remote.test")) return lookup.call(this, host, options, callback);
  const all = typeof options === "object" && options?.all;
  process.nextTick(() => (all ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : callback(null, "127.0.0.1", 4)));
};
