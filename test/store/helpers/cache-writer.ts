// A second process for the token cache's concurrency tests: `write DIR TAG COUNT` saves COUNT entries for
// profile "shared"; `refresh DIR LOG` asks for a valid token with a refresh that records itself in LOG.
import { appendFileSync } from 'node:fs';
import { openTokenCache, saveTokens } from '../../../src/store/token-cache.js';
import { getValidAccessToken } from '../../../src/store/token-refresh.js';

const [mode, dir, arg1, arg2] = process.argv.slice(2);
const cache = openTokenCache({}, { dir: dir! });
const key = { profile: 'shared' };

if (mode === 'write') {
  const count = Number(arg2);
  for (let i = 0; i < count; i++) {
    await saveTokens(
      cache,
      key,
      { access_token: `${arg1}-${i}-${'x'.repeat(2000)}`, refresh_token: `${arg1}-rt-${i}`, expires_in: 3600 },
      { tokenEndpoint: 'http://127.0.0.1:1/token', clientId: 'photo-cli', authMethod: 'none' },
    );
  }
} else if (mode === 'refresh') {
  const result = await getValidAccessToken(cache, key, {
    refresh: async (entry) => {
      appendFileSync(arg1!, `${process.pid} ${entry.refresh_token}\n`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { access_token: `fresh-from-${process.pid}`, refresh_token: `rotated-by-${process.pid}`, expires_in: 3600 };
    },
  });
  process.stdout.write(result.accessToken);
}
