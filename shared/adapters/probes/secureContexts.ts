import tls from "node:tls";

/**
 * One SecureContext per trust list, made on first use. tls.connect otherwise builds a new one
 * (a fresh OpenSSL SSL_CTX, the CA list loaded into it) for every connection: about 8% of a
 * verification run's CPU. Sharing is safe: the context holds only the trust list (the options
 * tls.connect would build it from), and Node keeps no client sessions in it (its session cache
 * is NO_INTERNAL), so no probe resumes another's session and each reads the certificate afresh.
 * The default context is Node's store as tls.connect's own default is: its bundled roots plus
 * NODE_EXTRA_CA_CERTS, which Node reads once at start.
 */
let defaultContext: tls.SecureContext | undefined;
const injectedContexts = new WeakMap<readonly string[], tls.SecureContext>();

export function secureContextFor(ca: readonly string[] | undefined): tls.SecureContext {
  if (ca === undefined) {
    defaultContext ??= tls.createSecureContext();
    return defaultContext;
  }
  let context = injectedContexts.get(ca);
  if (context === undefined) {
    context = tls.createSecureContext({ ca: [...ca] });
    injectedContexts.set(ca, context);
  }
  return context;
}
