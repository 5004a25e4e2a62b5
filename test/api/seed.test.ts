// The demo network of supabase/seed.sql, which `npm start` applies to a fresh database: its accounts sign in
// through the real Supabase Auth and show the features. Applied here to the test stack, then removed.
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

const demoPassword = 'daykeeper demo';

describe.skipIf(!authIsRunning)('the demo network', () => {
  afterAll(async () => {
    await asRoot`delete from auth.users where email like '%@demo.daykeeper.test'`;
  });

  it('signs in with the printed password and shows posts, a private account, a ban and a report to the admin', async () => {
    const applied = spawnSync('psql', [
      stack.dbUrl,
      '--quiet',
      '--no-psqlrc',
      '-v',
      'ON_ERROR_STOP=1',
      '-f',
      'supabase/seed.sql',
    ], { encoding: 'utf8' });
    expect(applied.status, applied.stderr).toBe(0);

    const ben = await api('POST', '/auth/login', { json: { login: 'ben', password: demoPassword } });
    expect(ben.status).toBe(200);
    const token = ben.body.session.access_token;
    // Ben is Ana's close friend and Cleo's accepted follower; Dan's request to Cleo is still pending.
    const anaPosts = await api('GET', '/ana/posts', { token });
    expect(anaPosts.body.items.map((post: { privacy: string }) => post.privacy)).toEqual(['close_friends', 'public']);
    expect((await api('GET', '/cleo/posts', { token })).status).toBe(200);
    expect((await api('GET', '/cleo/posts')).body.error.code).toBe('private_account');

    expect((await api('POST', '/auth/login', { json: { login: 'troll', password: demoPassword } })).status).toBe(401);
    const [troll] = await asRoot`select id from public.profiles where username = 'troll'`;
    const ana = await api('POST', '/auth/login', { json: { login: 'ana', password: demoPassword } });
    const admin = ana.body.session.access_token;
    const reports = await api('GET', '/admin/reports?type=user&limit=100', { token: admin });
    expect(reports.body.items.find((item: { target_id: string }) => item.target_id === troll.id)).toMatchObject({
      reports_count: 1,
    });
    const history = await api('GET', `/admin/banHistory/${troll.id}`, { token: admin });
    expect(history.body.items.map((entry: { action: string }) => entry.action)).toEqual(['ban']);
  });
});
