// docs/ACCOUNTS-SECURITY.md, "Who controls the account": one test per cell of test/helpers/account-matrix.ts. Each
// door of a cell gets an account and a session of the row's kind of its own, sends the column's action with that
// session's token alone, and checks the answer and whether the account changed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import {
  type Action,
  actions,
  type Door,
  matrix,
  matrixMarkdown,
  type Outcome,
  type SessionKind,
  sessionKinds,
} from '../helpers/account-matrix.ts';
import { asRoot } from '../helpers/db.ts';
import {
  authCall,
  codeAged,
  codeOf,
  codeSession,
  facade,
  googleAccount,
  googleSession,
  logIn,
  recoverySession,
  refreshed,
  rest,
  signsInWith,
  type Source,
  stillWorks,
  withFactor,
} from '../helpers/session-kinds.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

/** The owner, the thief's token of the row's kind, and what the columns act on. */
interface Scene {
  owner: Account;
  token: string;
  factorId?: string;
  /** Another session of the owner, for ending the other sessions. */
  laptop: string;
  /** The address every request of the scene comes from. */
  source: Source;
}

/** A token of the row's kind for a new account. */
async function sceneOf(kind: SessionKind, source: Source): Promise<Scene> {
  const owner = kind === 'google' ? await googleAccount(source) : await createAccount('owner');
  if (kind === 'admin') await makeAdmin(owner);
  const factor = ['aal1', 'aal2', 'codeWithFactor'].includes(kind) ? await withFactor(owner, source) : undefined;
  const token = await tokenOf(kind, owner, source, factor?.aal2);
  const laptop = kind === 'google'
    ? (await codeSession(owner, source)).access
    : (await logIn(owner, undefined, source)).body.session.access_token;
  return { owner, token, factorId: factor?.id, laptop, source };
}

async function tokenOf(kind: SessionKind, owner: Account, source: Source, aal2?: string): Promise<string> {
  switch (kind) {
    case 'password':
    case 'admin':
    case 'aal1':
      return (await logIn(owner, undefined, source)).body.session.access_token;
    case 'aal2':
      return aal2!;
    case 'codeFresh':
    case 'codeWithFactor':
      return (await codeSession(owner, source)).access;
    case 'recoveryLink':
      return (await recoverySession(owner, source)).access;
    case 'codeStale': {
      const session = await codeSession(owner, source);
      await codeAged(session.sessionId, 11);
      return session.access;
    }
    case 'codeRefreshed': {
      const session = await codeSession(owner, source);
      await codeAged(session.sessionId, 11);
      return (await refreshed(session, source)).access;
    }
    case 'google':
      return (await googleSession(owner, source)).access;
  }
}

/** An answer reduced to its status and its code, whatever the door's error shape. */
interface Answer {
  status: number;
  code?: string;
}

function fromAuth(answer: { status: number; body?: Record<string, unknown> }): Answer {
  const message = String(answer.body?.message ?? answer.body?.msg ?? '');
  // The database's hooks refuse with "<code>: <sentence>", which Auth passes on as the message.
  const hookCode = /^([a-z_]+): /.exec(message)?.[1];
  return { status: answer.status, code: hookCode ?? (answer.body?.code ?? answer.body?.error_code) as string };
}

const fromFacade = (answer: { status: number; body?: { error?: { code?: string } } }): Answer => ({
  status: answer.status,
  code: answer.body?.error?.code,
});

const fromPostgrest = (answer: { status: number; error: { code?: string; hint?: string | null } | null }): Answer => ({
  status: answer.status,
  code: answer.error ? (answer.error.hint ?? answer.error.code) : undefined,
});

const newPassword = 'chosen by the thief';

/** How each door sends each action with the token alone. */
const attempts: Record<Action, Partial<Record<Door, (scene: Scene, token: string) => Promise<Answer>>>> = {
  setPassword: {
    facade: async ({ source }, token) =>
      fromFacade(await facade(source, 'PUT', '/user', { token, json: { password: newPassword } })),
    auth: async ({ source }, token) =>
      fromAuth(await authCall('PUT', '/user', { source, token, json: { password: newPassword } })),
    admin: async ({ owner, source }, token) =>
      fromAuth(await authCall('PUT', `/admin/users/${owner.id}`, { source, token, json: { password: newPassword } })),
  },
  changeEmail: {
    facade: async ({ source }, token) =>
      fromFacade(await facade(source, 'PUT', '/user', { token, json: { email: uniqueEmail('thief') } })),
    auth: async ({ source }, token) =>
      fromAuth(await authCall('PUT', '/user', { source, token, json: { email: uniqueEmail('thief') } })),
    admin: async ({ owner, source }, token) =>
      fromAuth(
        await authCall('PUT', `/admin/users/${owner.id}`, {
          source,
          token,
          json: { email: uniqueEmail('thief'), email_confirm: true },
        }),
      ),
  },
  addFactor: {
    facade: async ({ source }, token) =>
      fromFacade(
        await facade(source, 'POST', '/user/mfa/totp', { token, json: { friendly_name: 'thief', code: '123456' } }),
      ),
    auth: async ({ source }, token) => {
      const enrolled = await authCall('POST', '/factors', {
        source,
        token,
        json: { factor_type: 'totp', friendly_name: 'thief' },
      });
      if (enrolled.status !== 200) return fromAuth(enrolled);
      const challenge = await authCall('POST', `/factors/${enrolled.body.id}/challenge`, { source, token, json: {} });
      return fromAuth(
        await authCall('POST', `/factors/${enrolled.body.id}/verify`, {
          source,
          token,
          json: { challenge_id: challenge.body.id, code: codeOf(enrolled.body.totp.secret) },
        }),
      );
    },
  },
  removeFactor: {
    facade: async ({ factorId, source }, token) =>
      fromFacade(await facade(source, 'DELETE', `/user/mfa/${factorId}`, { token })),
    auth: async ({ factorId, source }, token) =>
      fromAuth(await authCall('DELETE', `/factors/${factorId}`, { source, token })),
    admin: async ({ owner, factorId, source }, token) =>
      fromAuth(await authCall('DELETE', `/admin/users/${owner.id}/factors/${factorId}`, { source, token })),
  },
  startRecovery: {
    facade: async ({ source }, token) =>
      fromFacade(await facade(source, 'POST', '/user/mfa/recovery', { token, json: { code: '123456' } })),
  },
  cancelRecovery: {
    facade: async ({ source }, token) => fromFacade(await facade(source, 'DELETE', '/user/mfa/recovery', { token })),
    postgrest: async (_, token) => fromPostgrest(await rest(token).rpc('cancel_factor_recovery')),
  },
  endSessions: {
    facade: async ({ source }, token) =>
      fromFacade(await facade(source, 'POST', '/user/sessions/end_others', { token, json: {} })),
    auth: async ({ source }, token) => fromAuth(await authCall('POST', '/logout?scope=others', { source, token })),
    postgrest: async (_, token) => fromPostgrest(await rest(token).rpc('end_other_sessions')),
  },
  deleteAccount: {
    facade: async ({ source }, token) =>
      fromFacade(await facade(source, 'DELETE', '/user', { token, json: { code: '123456' } })),
    postgrest: async ({ owner }, token) =>
      fromPostgrest(await rest(token).from('profiles').delete().eq('id', owner.id)),
    admin: async ({ owner, source }, token) =>
      fromAuth(await authCall('DELETE', `/admin/users/${owner.id}`, { source, token })),
  },
};

/** Arranges what the action acts on, before the token is sent. */
const arrangements: Partial<Record<Action, (scene: Scene) => Promise<void>>> = {
  cancelRecovery: async ({ owner }) => {
    await asRoot`select private.start_factor_recovery(${owner.id})`;
  },
};

/** Whether the action changed the account. */
const changed: Record<Action, (scene: Scene) => Promise<boolean>> = {
  setPassword: async ({ owner }) => (await signsInWith(owner, newPassword)) === 200,
  changeEmail: async ({ owner }) =>
    (await asRoot`select 1 from auth.users where id = ${owner.id} and email = ${owner.email}`).length === 0,
  addFactor: async ({ owner }) =>
    (await asRoot`select 1 from auth.mfa_factors where user_id = ${owner.id} and friendly_name = 'thief'
      and status = 'verified'`).length > 0,
  removeFactor: async ({ factorId }) =>
    (await asRoot`select 1 from auth.mfa_factors where id = ${factorId!}`).length === 0,
  startRecovery: async ({ owner }) =>
    (await asRoot`select 1 from private.factor_recoveries where user_id = ${owner.id}`).length > 0,
  cancelRecovery: async ({ owner }) =>
    (await asRoot`select 1 from private.factor_recoveries where user_id = ${owner.id}`).length === 0,
  endSessions: async ({ laptop }) => (await stillWorks(laptop))[0] === 401,
  deleteAccount: async ({ owner }) => (await asRoot`select 1 from public.profiles where id = ${owner.id}`).length === 0,
};

/** What the door answered and did, in the table's words. */
function outcomeOf(answer: Answer, didChange: boolean): Outcome {
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok) return didChange ? 'done' : 'waits';
  return didChange ? `changed though refused ${answer.status} ${answer.code}` : answer.code ?? `${answer.status}`;
}

describe.skipIf(!authIsRunning)('who controls the account: the token of each kind of session, alone', () => {
  // Each cell's requests come from an address of their own: Auth counts code checks per address.
  let cells = 0;
  for (const kind of Object.keys(sessionKinds) as SessionKind[]) {
    for (const action of Object.keys(actions) as Action[]) {
      const cell = matrix[kind][action];
      if (!cell) continue;
      cells += 1;
      const source = `127.0.9.${cells}`;
      it(`${sessionKinds[kind]} × ${actions[action]}`, async () => {
        const seen: Record<string, Outcome> = {};
        for (const door of Object.keys(cell) as Door[]) {
          const scene = await sceneOf(kind, source);
          await arrangements[action]?.(scene);
          const answer = await attempts[action][door]!(scene, scene.token);
          seen[door] = outcomeOf(answer, await changed[action](scene));
        }
        expect(seen).toEqual(cell);
      });
    }
  }
});

describe('docs/ACCOUNTS-SECURITY.md', () => {
  it('shows the matrix the tests run', () => {
    const page = readFileSync(new URL('../../docs/ACCOUNTS-SECURITY.md', import.meta.url), 'utf8');
    expect(page).toContain(matrixMarkdown());
  });
});
