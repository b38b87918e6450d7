import { setFlagsFromString } from 'node:v8';

// V8's memory reducer collects once a process goes quiet (~8 s of little allocation). By default it collects
// as when memory is short, and drops the hidden classes no live object has any more: a server idle between
// bursts holds no request objects, so every optimised function of the request path that embeds one is thrown
// away with them (~140 functions in `make bench`), and the next burst runs unoptimised until V8 compiles them
// again (docs/performance.md, "Where the dips came from"). Told not to favour memory, the reducer still
// collects and gives back empty pages, but keeps those classes and the code using them. The collection after
// a burst of sign-ins (idle-memory-release.ts) still drops them: it is the one that gives back the most.

/** V8's own flag, which NODE_OPTIONS refuses to carry. */
export const KEEP_CODE_FLAG = '--no-memory-reducer-favors-memory';

/** Once, at start-up, in production: the flag is read at each of the reducer's collections. */
export function keepOptimisedCodeWhenIdle(): void {
  setFlagsFromString(KEEP_CODE_FLAG);
}
