import { describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';

describe('the error envelope', () => {
  it('answers an unknown route with 404 route_not_found and a request id', async () => {
    const response = await api('GET', '/no/such/route');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'route_not_found' });
    expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('refuses a body over 64 KiB with 413 before any route runs', async () => {
    const response = await api('POST', '/auth/user', { body: 'x'.repeat(65 * 1024) });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });
});

describe('GET /openapi.json', () => {
  it('documents every route, error responses included', async () => {
    const response = await api('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.paths)).toEqual(expect.arrayContaining(['/api/health', '/api/auth/user']));
    expect(response.body.paths['/api/auth/user'].get.responses['401']).toBeDefined();
  });
});
