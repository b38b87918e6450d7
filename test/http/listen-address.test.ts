import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config';
import { startService } from '../../src/service';
import { memoryLogger, TEST_SECRETS } from '../support/test-app';

// The server binds where HOST says: loopback by default outside production, so `make run` on a laptop does
// not offer the service to the network.

describe('the listen address', () => {
  it.each([
    [{}, '127.0.0.1'],
    [{ HOST: '0.0.0.0' }, '0.0.0.0'],
  ])('with %j the server listens on %s', async (env, address) => {
    const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS, ...env });
    const service = await startService(config, memoryLogger().logger, { port: 0 });
    try {
      expect((service.server.address() as AddressInfo).address).toBe(address);
    } finally {
      await service.stop();
    }
  });
});
