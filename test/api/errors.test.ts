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
    const documented = Object.entries(response.body.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual([
      'DELETE /api/user', 'GET /api/auth/google', 'GET /api/auth/user', 'GET /api/health',
      'POST /api/auth/confirm_email', 'POST /api/auth/forget_password', 'POST /api/auth/login', 'POST /api/auth/logout',
      'POST /api/auth/refresh', 'POST /api/auth/register', 'POST /api/auth/requestdeletecode', 'POST /api/auth/resend_code',
      'POST /api/auth/reset_password', 'PUT /api/resetprofilepicture', 'PUT /api/user',
    ]);
    for (const [path, methods] of Object.entries(response.body.paths)) {
      for (const [method, operation] of Object.entries(methods as Record<string, { responses: Record<string, unknown> }>)) {
        const errors = Object.keys(operation.responses).filter((status) => status >= '400');
        expect([method, path, errors.length > 0 || path === '/api/health' || path === '/api/openapi.json']).toEqual([method, path, true]);
      }
    }
  });
});
