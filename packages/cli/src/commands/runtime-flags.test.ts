import { describe, expect, it } from 'vitest';
import { createTestContext } from '../../test-helpers/test-context.js';
import { userCacheDir } from './runtime-flags.js';

describe('userCacheDir', () => {
  const ctx = (env: NodeJS.ProcessEnv) => ({ ...createTestContext('/some/project'), env });

  it('is under $XDG_CACHE_HOME when it is absolute, else under ~/.cache', () => {
    expect(userCacheDir(ctx({ XDG_CACHE_HOME: '/var/cache/me', HOME: '/home/me' }), 'probes')).toBe(
      '/var/cache/me/junobench/probes',
    );
    expect(userCacheDir(ctx({ HOME: '/home/me' }), 'probes')).toBe('/home/me/.cache/junobench/probes');
    expect(userCacheDir(ctx({ XDG_CACHE_HOME: '', HOME: '/home/me' }), 'probes')).toBe(
      '/home/me/.cache/junobench/probes',
    );
  });

  it('ignores a relative $XDG_CACHE_HOME, as the specification says, rather than use it from the working folder', () => {
    expect(userCacheDir(ctx({ XDG_CACHE_HOME: 'cache', HOME: '/home/me' }), 'probes')).toBe(
      '/home/me/.cache/junobench/probes',
    );
  });
});
