// The typed client (client/, @daykeeper/client) against the running facade, as a TypeScript consumer uses it:
// every path, body and answer below is checked by `npm run check`.
import { assert, describe, expect, it } from 'vitest';
import { createApiClient } from '../../client/index.ts';
import { uniqueUsername } from '../helpers/accounts.ts';
import { assertKeepsContract } from '../helpers/contract.ts';
import { latestCode } from '../helpers/mailpit.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { defaultPassword, uniqueEmail } from '../helpers/users.ts';

/** The document's server: the functions URL, without the function's /api. */
const api = createApiClient(stack.functionsUrl.replace(/\/api$/, ''));
// Each answer is checked against the served document, as those of `api()` are.
api.use({
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    const path = new URL(request.url).pathname.replace(/^.*?\/api(?=\/)/, '') + new URL(request.url).search;
    await assertKeepsContract(
      request.method,
      path,
      response.status,
      text ? JSON.parse(text) : undefined,
      response.headers,
    );
  },
});

/** The answer's data, or a failure that shows the error envelope. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

describe('the typed client', () => {
  it('turns a wrong field name into a type error', () => {
    const wrongField = () =>
      // @ts-expect-error: the login body's field is `login`; `npm run check` fails if this stops being an error
      api.POST('/api/auth/login', { body: { username: 'ana', password: defaultPassword } });
    expect(wrongField).toBeTypeOf('function');
  });

  it.skipIf(!authIsRunning)('registers, confirms, signs in, writes a post, reads it and likes it', async () => {
    const username = uniqueUsername('typed');
    const email = uniqueEmail('typed');
    const registered = await api.POST('/api/auth/register', { body: { username, email, password: defaultPassword } });
    expect(ok(registered)).toEqual({ confirmation_required: true, email });

    const confirmed = ok(await api.POST('/api/auth/confirm_email', { body: { email, code: await latestCode(email) } }));
    // 200 a session, or 202 a message (one address of an e-mail change): the type says both.
    assert('profile' in confirmed, 'a sign-up confirmation answers with a session');
    expect(confirmed.profile?.username).toBe(username);

    const { session, user } = ok(
      await api.POST('/api/auth/login', { body: { login: username, password: defaultPassword } }),
    );
    expect(user.id).toBe(confirmed.user.id);
    const headers = { Authorization: `Bearer ${session.access_token}` };

    const created = await api.POST('/api/post/create', {
      headers,
      body: { body: 'Written with the typed client', emotion: 70 },
    });
    expect(created.response.status).toBe(201);
    const postId = ok(created).id;

    const read = ok(await api.GET('/api/post/{postId}', { headers, params: { path: { postId } } }));
    expect(read).toMatchObject({
      body: 'Written with the typed client',
      emotion: 70,
      author: { username },
      likes_count: 0,
    });

    const liked = ok(
      await api.POST('/api/post/{postId}/like', { headers, params: { path: { postId } }, body: { like: true } }),
    );
    expect(liked).toMatchObject({ id: postId, likes_count: 1, viewer: { liked: true, is_author: true } });
  });
});
