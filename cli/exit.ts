/** Exit codes: the CLI's contract with scripts and schedulers. */
export const EXIT = {
  /** Done, including "nothing is due". */
  ok: 0,
  /** An operation failed: the service refused, could not be reached, a renewal failed. */
  failed: 1,
  /** The command line, the configuration or an input file is wrong; nothing was sent. */
  usage: 2,
} as const;
