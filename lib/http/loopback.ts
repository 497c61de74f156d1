/**
 * Whether a URL's hostname names this machine (`localhost`, `127.0.0.0/8`, `[::1]`): plain http:// to it
 * carries a credential no further than this machine (lib/config/service-config.ts), so no egress proxy
 * may carry it anywhere else either (transport.ts: as Go's standard library, it is never proxied).
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
