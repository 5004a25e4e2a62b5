// Studio's Authentication page bans and unbans a user by calling Supabase Auth's admin API with the service key:
// `PUT /auth/v1/admin/users/{id}` with `{ ban_duration: '<n>h' | 'none' }` (supabase/supabase,
// apps/studio/data/auth/user-update-mutation.ts). Each becomes the product's ban or unban
// (supabase/schemas/17_studio_moderation.sql), seen alike through the facade, PostgREST and Studio's views.
import { describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { anonSdk } from '../helpers/sdk.ts';
import { studioAuth } from '../helpers/studio.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

/** What Studio's Ban / Unban buttons send. */
async function studioBan(account: Account, banDuration: string) {
  return (await studioAuth('PUT', `/admin/users/${account.id}`, { ban_duration: banDuration })).status;
}

async function banState(account: Account) {
  const [row] =
    await asRoot`select (p.banned_at is not null) as profile, coalesce(u.banned_until > now() + interval '99 years', false) as auth,
      (select count(*)::int from auth.sessions s where s.user_id = u.id) as sessions,
      exists (select 1 from moderation.current_bans b where b.element_id = u.id) as listed
    from auth.users u join public.profiles p on p.id = u.id where u.id = ${account.id}`;
  return row;
}

const history = (account: Account) =>
  asRoot`select action, database_role, admin_id from public.ban_history where element_id = ${account.id} order by created_at, action`;

describe.skipIf(!authIsRunning)("Studio's Authentication page: Ban and Unban", () => {
  it("a ban for 24 hours is the product's ban: hidden, signed out everywhere, recorded with Auth's role, until lifted", async () => {
    const member = await createAccount('member');
    const viewer = await createAccount('viewer');
    expect(await studioBan(member, '24h')).toBe(200);
    expect(await banState(member)).toEqual({ profile: true, auth: true, sessions: 0, listed: true });
    expect(await history(member)).toEqual([{ action: 'ban', database_role: 'supabase_auth_admin', admin_id: null }]);
    const [entry] = await asRoot`select reason from public.ban_history where element_id = ${member.id}`;
    expect(entry.reason).toMatch(/^Banned through Supabase Auth's admin API/);
    // Every door sees the ban: the old token is refused, the profile hidden, sign-in refused.
    expect((await api('GET', '/auth/user', { token: member.accessToken })).status).toBe(401);
    expect((await api('GET', `/${member.username}`, { token: viewer.accessToken })).status).toBe(404);
    const { data } = await anonSdk().from('profiles').select('id').eq('id', member.id);
    expect(data).toEqual([]);
    expect((await api('POST', '/auth/login', { json: { login: member.username, password: defaultPassword } })).status)
      .toBe(401);
    // Banned again from the page: the product's ban is kept, not shortened.
    expect(await studioBan(member, '1h')).toBe(200);
    expect(await banState(member)).toMatchObject({ profile: true, auth: true });
    expect(await history(member)).toHaveLength(1);
  });

  it("Unban lifts the product's ban, whoever banned; the old tokens stay dead", async () => {
    const member = await createAccount('member');
    await asRoot`select moderation.ban_user(${member.username}, 'spam')`;
    expect(await studioBan(member, 'none')).toBe(200);
    expect(await banState(member)).toEqual({ profile: false, auth: false, sessions: 0, listed: false });
    expect((await history(member)).map((h) => [h.action, h.database_role])).toEqual([['ban', 'postgres'], [
      'unban',
      'supabase_auth_admin',
    ]]);
    expect((await api('GET', '/auth/user', { token: member.accessToken })).status).toBe(401);
    expect((await api('POST', '/auth/login', { json: { login: member.username, password: defaultPassword } })).status)
      .toBe(200);
    // The moderation function now agrees: the account is not banned.
    expect(await asRoot`select moderation.ban_user(${member.username}, 'again') as done`).toHaveLength(1);
  });

  it('an admin cannot be banned from the page; an edit of banned_until in the table editor is a ban too', async () => {
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    expect(await studioBan(admin, '24h')).toBeGreaterThanOrEqual(400);
    expect(await banState(admin)).toMatchObject({ profile: false, auth: false });
    expect((await api('GET', '/auth/user', { token: admin.accessToken })).status).toBe(200);

    const member = await createAccount('member');
    await asRoot`update auth.users set banned_until = now() + interval '2 hours' where id = ${member.id}`;
    expect(await banState(member)).toEqual({ profile: true, auth: true, sessions: 0, listed: true });
    expect(await history(member)).toEqual([{ action: 'ban', database_role: 'postgres', admin_id: null }]);
  });
});
