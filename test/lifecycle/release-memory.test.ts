import { runInNewContext } from 'node:vm';
import { releaseMemory } from '../../src/lifecycle/release-memory';

// The one memory-reducing collection a production start runs before serving (src/service.ts): it gives the
// young generation a burst grew back to the system, and leaves no `gc` behind for any code to call.

describe('releasing start-up memory', () => {
  it('shrinks a heap a burst of allocation grew, and exposes no gc', () => {
    // Garbage as start-up leaves it: allocated, survived a while, then unreachable.
    const burst = (() => Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` })).length)();
    expect(burst).toBe(200_000);
    const before = process.memoryUsage().heapTotal;
    expect(releaseMemory()).toBeGreaterThan(0);
    expect(process.memoryUsage().heapTotal).toBeLessThan(before);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
