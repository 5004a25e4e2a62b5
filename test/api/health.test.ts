import { describe, expect, it } from 'vitest';
import { appWith, unreachable } from '../helpers/app.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe('GET /health', () => {
  it.skipIf(!authIsRunning)('answers 200 when the database and Auth are up', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', database: 'up', auth: 'up', mail: 'up' });
  });

  it.skipIf(authIsRunning)('answers 503 naming Auth when Auth is not running', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'degraded', database: 'up', auth: 'down', mail: 'up' });
  });

  it('answers 503 naming both services when neither can be reached', async () => {
    const app = appWith({ SUPABASE_URL: unreachable, SUPABASE_DB_URL: `postgres://authenticator:x@127.0.0.1:9/postgres` });
    const response = await app.request('/api/health');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'degraded', database: 'down', auth: 'down', mail: 'unchecked' });
  });
});
