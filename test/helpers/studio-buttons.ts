// The Authentication page's buttons (Auth's admin API with the service key, test/helpers/studio.ts studioAuth) and
// the SQL editor's role impersonation, as catalogued actions (test/helpers/studio-actions.ts).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type Account, banDirectly, makeAdmin } from './accounts.ts';
import { asRoot } from './db.ts';
import { api } from './http.ts';
import { mailCount } from './mailpit.ts';
import { corrected, type Expected, kept, refused, sources, type StudioAction } from './studio-action-kinds.ts';
import type { Scene } from './studio-scene.ts';
import { type Aal, type Impersonated, impersonating, studioAuth } from './studio.ts';
import { defaultPassword, uniqueEmail } from './users.ts';

function button(
  what: string,
  mirrors: string,
  expected: Expected,
  send: StudioAction['send'],
  then?: StudioAction['then'],
  prepare?: StudioAction['prepare'],
): StudioAction {
  return { name: `authentication page: ${what}`, door: 'auth-admin', mirrors, expected, send, then, prepare };
}

const signsIn = async (email: string, password = defaultPassword) =>
  (await api('POST', '/auth/login', { json: { login: email, password } })).status;
const idOf = (result: unknown) => (result as { body: { id: string } }).body.id;
const anonReads = async (id: string) =>
  (await asRoot`select 1 from public.profiles where id = ${id} and confirmed_at is not null and banned_at is null`)
    .length === 1;
const bannedEmail = new WeakMap<Scene, string>();
const invited = new WeakMap<Scene, string>();
const withFactorRow = async (account: Account) => {
  await asRoot`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
    values (${randomUUID()}, ${account.id}, 'phone', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP')`;
};

export const authActions: StudioAction[] = [
  button('Add user, auto-confirmed', sources.addUser, kept, () =>
    studioAuth('POST', '/admin/users', {
      email: uniqueEmail('added'),
      password: defaultPassword,
      email_confirm: true,
    }), async (_s, _b, _a, result) => {
    expect(await anonReads(idOf(result))).toBe(true);
    expect(await signsIn((result as { body: { email: string } }).body.email)).toBe(200);
  }),
  button('Add user, unconfirmed', sources.addUser, kept, () =>
    studioAuth('POST', '/admin/users', {
      email: uniqueEmail('pending'),
      password: defaultPassword,
      email_confirm: false,
    }), async (_s, _b, _a, result) => {
    expect(await anonReads(idOf(result))).toBe(false);
  }),
  button(
    "Add user with another account's address",
    sources.addUser,
    refused('email_exists'),
    (s) => studioAuth('POST', '/admin/users', { email: s.other.email, password: defaultPassword, email_confirm: true }),
  ),
  button(
    'Add user with a banned address',
    sources.addUser,
    refused('PT403'),
    (s) =>
      studioAuth('POST', '/admin/users', { email: bannedEmail.get(s), password: defaultPassword, email_confirm: true }),
    undefined,
    async (s) => {
      const email = uniqueEmail('banned');
      bannedEmail.set(s, email);
      await asRoot`insert into private.banned_emails (email) values (${email})`;
    },
  ),
  button('Invite user', sources.inviteUser, kept, (s) => {
    invited.set(s, uniqueEmail('invited'));
    return studioAuth('POST', '/invite', { email: invited.get(s) });
  }, async (s, _b, _a, result) => {
    expect(await anonReads(idOf(result))).toBe(false);
    expect(await mailCount(invited.get(s)!)).toBe(1);
  }),
  button(
    'Send magic link',
    sources.magicLink,
    kept,
    (s) => studioAuth('POST', '/magiclink', { email: s.other.email }),
    async (s) => {
      expect(await mailCount(s.other.email)).toBe(1);
      expect(await signsIn(s.other.email)).toBe(200); // the password is unchanged
    },
  ),
  button(
    'Send password recovery',
    sources.recovery,
    kept,
    (s) => studioAuth('POST', '/recover', { email: s.other.email }),
    async (s) => {
      expect(await mailCount(s.other.email)).toBe(1);
      expect(await signsIn(s.other.email)).toBe(200);
    },
  ),
  button('Send confirmation to an unconfirmed account', sources.confirmation, kept, (s) => {
    invited.set(s, uniqueEmail('unconfirmed'));
    return studioAuth('POST', '/admin/users', { email: invited.get(s), password: defaultPassword })
      .then(() => studioAuth('POST', '/invite', { email: invited.get(s) }));
  }, async (s) => {
    expect(await mailCount(invited.get(s)!)).toBe(1);
  }),
  button('Update user: e-mail', sources.updateUser, corrected('kept in lower case, with its identity'), (s) => {
    invited.set(s, uniqueEmail('moved'));
    return studioAuth('PUT', `/admin/users/${s.other.id}`, { email: invited.get(s)!.toUpperCase() });
  }, async (s) => {
    expect(await asRoot`select email from auth.identities where user_id = ${s.other.id} and provider = 'email'`)
      .toEqual([
        { email: invited.get(s) },
      ]);
    expect(await signsIn(invited.get(s)!)).toBe(200);
  }),
  button(
    "Update user: another account's e-mail",
    sources.updateUser,
    refused('PT409'),
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { email: s.fan.email.toUpperCase() }),
  ),
  button(
    'Update user: password',
    sources.updateUser,
    kept,
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { password: 'a chosen password' }),
    async (s) => {
      expect(await signsIn(s.other.email, 'a chosen password')).toBe(200);
      expect(await signsIn(s.other.email)).toBe(401);
    },
  ),
  button(
    'Update user: a password under 8 characters',
    sources.updateUser,
    refused('weak_password'),
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { password: 'abc' }),
  ),
  button(
    'Update user: a password over 72 characters',
    sources.updateUser,
    refused('validation_failed'),
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { password: 'x'.repeat(80) }),
  ),
  button(
    'Ban user',
    sources.updateUser,
    kept,
    (s) => studioAuth('PUT', `/admin/users/${s.fan.id}`, { ban_duration: '24h' }),
    (_s, before, after) => {
      expect(after.fan).toBeNull();
      expect(after.feed).toBeNull(); // the fan's session ended
      expect(after.post!.likes_count).toBe(before.post!.likes_count);
    },
  ),
  button(
    'Ban user who is an admin',
    sources.updateUser,
    refused('PT409'),
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { ban_duration: '24h' }),
    undefined,
    (s) => makeAdmin(s.other),
  ),
  button(
    'Unban user',
    sources.updateUser,
    kept,
    (s) => studioAuth('PUT', `/admin/users/${s.other.id}`, { ban_duration: 'none' }),
    (_s, before, after) => {
      expect(before.other).toBeNull();
      expect(after.other).not.toBeNull();
    },
    (s) => banDirectly(s.other),
  ),
  button(
    'Delete user',
    sources.deleteUser,
    kept,
    (s) => studioAuth('DELETE', `/admin/users/${s.fan.id}`, { should_soft_delete: false }),
    (_s, before, after) => {
      expect(after.fan).toBeNull();
      expect(after.post).toMatchObject({ likes_count: before.post!.likes_count - 1, comments_count: 0 });
      expect(after.author!.followers_count).toBe(before.author!.followers_count - 1);
    },
  ),
  button('Remove MFA factors', sources.deleteFactors, kept, async (s) => {
    const [factor] = await asRoot`select id from auth.mfa_factors where user_id = ${s.other.id}`;
    return studioAuth('DELETE', `/admin/users/${s.other.id}/factors/${factor.id}`);
  }, async (s) => {
    expect(await asRoot`select id from auth.mfa_factors where user_id = ${s.other.id}`).toEqual([]);
    expect(await signsIn(s.other.email)).toBe(200);
  }, (s) => withFactorRow(s.other)),
  button(
    'Send OTP (phone sign-in is off)',
    sources.sendOtp,
    refused('phone_provider_disabled'),
    () => studioAuth('POST', '/otp', { phone: '+15555550100' }),
  ),
];

/** The SQL editor, its role set to `who` (at `aal`), running `statement`. */
function impersonated(
  what: string,
  expected: Expected,
  who: (s: Scene) => Impersonated,
  statement: (s: Scene) => string,
  then?: StudioAction['then'],
  prepare?: StudioAction['prepare'],
  aal: Aal = 'aal1',
): StudioAction {
  return {
    name: `sql editor impersonating ${what}`,
    door: 'sql-editor-impersonation',
    mirrors: sources.impersonation,
    expected,
    prepare,
    send: (s) => impersonating(who(s), (tx) => tx.unsafe(statement(s)), aal),
    then,
  };
}

const rows = (result: unknown) => result as Record<string, unknown>[];
const like = (s: Scene) => `select public.like_post('${s.post}')`;

export const impersonationActions: StudioAction[] = [
  impersonated(
    'a user: their feed',
    kept,
    (s) => s.fan,
    () => 'select public.feed() as page',
    (s, _b, after, result) => {
      expect(rows(result)[0].page).toMatchObject({ items: [{ id: s.post }] });
      expect(after.feed).toEqual([s.post]);
    },
  ),
  impersonated('a user: a like', kept, (s) => s.other, like, (_s, before, after) => {
    expect(after.post!.likes_count).toBe(before.post!.likes_count + 1);
    expect(after.notices).toEqual(before.notices); // the author mutes other: no notification
  }),
  impersonated(
    'a banned user: a like',
    refused('unauthorized'),
    (s) => s.other,
    like,
    undefined,
    (s) => banDirectly(s.other),
  ),
  impersonated(
    "a private account's follower: its post",
    kept,
    (s) => s.fan,
    (s) => `select id from public.posts where id = '${s.post}'`,
    (s, _b, _a, result) => {
      expect(rows(result)).toEqual([{ id: s.post }]);
    },
    async (s) => {
      await asRoot`update public.profiles set is_private = true where id = ${s.author.id}`;
    },
  ),
  impersonated(
    "a stranger: a private account's post",
    kept,
    (s) => s.other,
    (s) => `select id from public.posts where id = '${s.post}'`,
    (_s, _b, _a, result) => {
      expect(rows(result)).toEqual([]);
    },
    async (s) => {
      await asRoot`update public.profiles set is_private = true where id = ${s.author.id}`;
    },
  ),
  impersonated(
    'a blocked user: the blocker',
    kept,
    (s) => s.fan,
    (s) => `select id from public.profiles where id = '${s.blocker.id}'`,
    (_s, _b, _a, result) => {
      expect(rows(result)).toEqual([]);
    },
  ),
  impersonated(
    'a blocked user: following the blocker',
    refused('user_not_found'),
    (s) => s.fan,
    (s) => `select public.follow('${s.blocker.username}', true)`,
  ),
  impersonated(
    'anon: a public post',
    kept,
    () => 'anon',
    (s) => `select id from public.posts where id = '${s.post}'`,
    (s, _b, _a, result) => {
      expect(rows(result)).toEqual([{ id: s.post }]);
    },
  ),
  impersonated('anon: a like', refused('42501'), () => 'anon', like),
  impersonated(
    'a user with a second factor at aal1',
    refused('second_factor_required'),
    (s) => s.other,
    () => 'select public.me() as me',
    undefined,
    (s) => withFactorRow(s.other),
  ),
  impersonated(
    'a user with a second factor at aal2',
    kept,
    (s) => s.other,
    () => 'select public.me() as me',
    (s, _b, _a, result) => {
      expect(rows(result)[0].me).toMatchObject({ username: s.other.username });
    },
    (s) => withFactorRow(s.other),
    'aal2',
  ),
];
