import { loadConfig } from '../../src/config/config';
import { modules as registeredModules } from '../../src/modules';
import { startService } from '../../src/service';
import { CapturingLogger } from '../scale/plans';
import { benchNotesModule } from '../scale/notes-resource';

// The service as `npm run bench:flood` measures it: its own process (bench/child-process.ts forks this file
// under tsx), so the flooding client (flooder.ts) and the sampler (the bench's process) take none of its
// event loop. Settings come from the environment the bench passes; it says its port over IPC when it listens.

async function main(): Promise<void> {
  const service = await startService(loadConfig(process.env), new CapturingLogger().logger, {
    modules: [...registeredModules, benchNotesModule],
    port: 0,
    host: '127.0.0.1',
  });
  const stop = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
  process.send?.({ ready: true, port: service.port });
}

main().catch((error: unknown) => {
  process.stderr.write(`flood service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
