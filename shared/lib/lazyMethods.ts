/** The names of `T`'s members that are functions returning a promise. */
export type AsyncMethodOf<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T];

/**
 * `T`'s async methods `names`, each loading the implementation (`load()`, once) on its first
 * call and then calling it: a port whose adapter pulls in a large module (a table store, its
 * row schemas, a webhook formatter) costs nothing until it is used (the CLI starts at once). A load that
 * fails is not kept: the next call tries again, as every call would reach the adapter anyway.
 */
export function lazyMethods<T extends object, K extends AsyncMethodOf<T>>(
  load: () => Promise<T>,
  names: readonly K[],
): Pick<T, K> {
  let loading: Promise<T> | undefined;
  const impl = () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const out: Partial<Record<K, unknown>> = {};
  for (const name of names) {
    out[name] = async (...args: unknown[]) => {
      const target = await impl();
      const method = target[name] as unknown as (...a: unknown[]) => Promise<unknown>;
      return method.apply(target, args);
    };
  }
  return out as Pick<T, K>;
}
