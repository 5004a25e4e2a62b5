import { describe, expect, it } from 'vitest';
import { appWith, unreachable } from '../helpers/app.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe('GET /health', () => {
  it.skipIf(!authIsRunning)('answers 200 when the database, Auth and PostgREST are up', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', database: 'up', auth: 'up', rest: 'up', mail: 'up' });
  });

  it.skipIf(authIsRunning)('answers 503 naming Auth when Auth is not running', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'degraded', database: 'up', auth: 'down', rest: 'up', mail: 'up' });
  });

  it('answers 503 naming every service it cannot reach', async () => {
    const app = appWith({ SUPABASE_URL: unreachable, SUPABASE_DB_URL: `postgres://authenticator:x@127.0.0.1:9/postgres` });
    const response = await app.request('/api/health');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'degraded', database: 'down', auth: 'down', rest: 'down', mail: 'unchecked' });
  });
});
