import { describe, expect, it } from 'vitest';
import { appWith, unreachable } from '../helpers/app.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe('GET /health', () => {
  it('says whether a read replica can take reads, without counting one that cannot against the status', async () => {
    const down = appWith({ DB_REPLICA_URLS: 'postgresql://authenticator:postgres@127.0.0.1:9/postgres' });
    const response = await down.request('/api/health');
    expect(((await response.json()) as { replicas: string }).replicas).toBe('down');
    expect(response.status).toBe(authIsRunning ? 200 : 503); // 503 only for Auth
  });

  it.skipIf(!authIsRunning)('answers 200 when the database, Auth and PostgREST are up', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ok',
      database: 'up',
      auth: 'up',
      rest: 'up',
      mail: 'up',
      replicas: stack.replicaUrl ? 'up' : 'none',
    });
  });

  it.skipIf(authIsRunning)('answers 503 naming Auth when Auth is not running', async () => {
    const response = await api('GET', '/health');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'degraded',
      database: 'up',
      auth: 'down',
      rest: 'up',
      mail: 'up',
      replicas: stack.replicaUrl ? 'up' : 'none',
    });
  });

  it('answers 503 naming every service it cannot reach', async () => {
    const app = appWith({
      SUPABASE_URL: unreachable,
      SUPABASE_DB_URL: `postgres://authenticator:x@127.0.0.1:9/postgres`,
    });
    const response = await app.request('/api/health');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'degraded',
      database: 'down',
      auth: 'down',
      rest: 'down',
      mail: 'unchecked',
      replicas: 'none',
    });
  });
});
