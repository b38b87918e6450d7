import { get } from '../scale/measure';

// The flooding users of `npm run bench:flood`, in a process of its own (run.ts forks this file under tsx), as a
// flooding client is another machine: the sampler timing the other user's page, in the bench's process, then
// waits on no flood answer in its own event loop, and what it times is the service's answer. The orders come
// over IPC; `stop` ends the loops, and the statuses they were answered go back.

interface Orders {
  baseUrl: string;
  path: string;
  /** One per flooding account: each runs `loops` loops. */
  authorizations: string[];
  loops: number;
}

process.once('message', (orders: Orders) => {
  const statuses = new Map<number, number>();
  let flooding = true;
  const loops = orders.authorizations.flatMap((authorization) =>
    Array.from({ length: orders.loops }, async () => {
      while (flooding) {
        const status = await get(orders.baseUrl, orders.path, authorization).then(
          (answer) => answer.status,
          () => 0, // the connection failed: counted as 0
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  process.once('message', () => {
    flooding = false;
    void Promise.all(loops).then(() => process.send?.({ statuses: [...statuses] }, () => process.exit(0)));
  });
  process.send?.({ started: true });
});
process.once('disconnect', () => process.exit(0));
