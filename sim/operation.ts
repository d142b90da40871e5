/** The operations the simulator tells apart, for recording, counting and fault injection. */
export type SimOperation = "create" | "renew" | "list" | "publicRenew" | "test" | "get" | "token";
