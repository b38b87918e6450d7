import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';

describe('ROLES and refresh rotation settings', () => {
  it('ROLES defaults to user,admin; a custom list must keep both; DEMO_USER_ROLE must be one of them', () => {
    expect(loadConfig({}).roles).toEqual(['user', 'admin']);
    expect(loadConfig({ ROLES: 'user, editor ,admin,editor' }).roles).toEqual(['user', 'editor', 'admin']);
    expect(configError({ ROLES: 'editor,admin' }).variable).toBe('ROLES');
    expect(configError({ ROLES: 'user,admin,bad role' }).variable).toBe('ROLES');
    expect(configError({ DEMO_USER_ROLE: 'owner' }).variable).toBe('DEMO_USER_ROLE');
    expect(loadConfig({ ROLES: 'user,admin,owner', DEMO_USER_ROLE: 'owner' }).demoUser.role).toBe('owner');
  });

  it('rotation is off by default, with a 10 s grace window and absolute expiry', () => {
    expect(loadConfig({}).refreshRotation).toEqual({ enabled: false, graceMs: 10_000, sliding: false });
    expect(
      loadConfig({ REFRESH_ROTATION: 'true', REFRESH_REUSE_GRACE: '2s', REFRESH_EXPIRY: 'sliding' }).refreshRotation,
    ).toEqual({
      enabled: true,
      graceMs: 2_000,
      sliding: true,
    });
    expect(loadConfig({ REFRESH_REUSE_GRACE: '0' }).refreshRotation.graceMs).toBe(0);
    expect(configError({ REFRESH_REUSE_GRACE: 'soon' }).variable).toBe('REFRESH_REUSE_GRACE');
    expect(configError({ REFRESH_EXPIRY: 'forever' }).variable).toBe('REFRESH_EXPIRY');
  });
});
