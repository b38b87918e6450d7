/**
 * Told when a unit of memory-heavy work (a password hash) starts and ends: in production the memory release
 * after a burst of them (idle-memory-release.ts). Its own file, with no imports, so the code doing the work
 * (src/auth/hash-queue.ts, which the configuration reads) depends on nothing else of the lifecycle.
 */
export interface BurstActivity {
  started(): void;
  ended(): void;
}
