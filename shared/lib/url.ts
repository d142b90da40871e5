/** The address rules every outbound call follows (settings, storage, the simulator's loopback). */

const LOOPBACK_HOSTS = new Set(["localhost", "[::1]", "::1"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The one rule for every address certsched reaches: https, or plain http to a loopback host. */
export function isSecureOrLoopback(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}
