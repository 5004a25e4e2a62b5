// The matrix of docs/ACCOUNTS-SECURITY.md, "Who controls the account": what the token of each kind of session can
// do, alone, to who controls its account, through each door that offers the action. test/api/account-matrix.test.ts
// runs one test per cell, each door of the cell in turn, and checks that the page shows this table as it is here:
// a new kind of session or a new door is a row or a key added here.

/** The doors a token is sent to. */
export const doors = {
  facade: 'the facade',
  auth: "Auth's `/auth/v1`",
  postgrest: 'PostgREST (`from()`, `rpc()`)',
  admin: "Auth's admin API",
} as const;
export type Door = keyof typeof doors;

/** The kinds of session (and of account) a thief may hold a token of: the rows. */
export const sessionKinds = {
  password: 'a password sign-in, no second factor',
  admin: "an admin's password sign-in",
  aal1: 'a password sign-in of an account with a second factor (`aal1`)',
  aal2: 'a session that proved the second factor (`aal2`)',
  codeFresh: 'an e-mailed code or magic link, within 10 minutes of the code',
  recoveryLink: 'a password-reset code or link, within 10 minutes of the code',
  codeStale: 'an e-mailed code or magic link, more than 10 minutes after the code',
  codeRefreshed: 'a code session refreshed after its 10 minutes',
  codeWithFactor: 'an e-mailed code, within 10 minutes, of an account with a second factor (`aal1`)',
  google: 'Google (OAuth) of an account without a password of its own',
} as const;
export type SessionKind = keyof typeof sessionKinds;

/** The actions that change who controls the account: the columns. */
export const actions = {
  setPassword: 'set or change the password',
  changeEmail: 'change the e-mail',
  addFactor: 'add an authenticator',
  removeFactor: 'remove an authenticator',
  startRecovery: 'start a factor recovery',
  cancelRecovery: 'cancel a factor recovery',
  endSessions: 'end the other sessions',
  deleteAccount: 'delete the account',
} as const;
export type Action = keyof typeof actions;

/**
 * What one door does with the token alone: `done`; `waits` (accepted, but nothing changes until codes sent to
 * both the current and the new address come back: Auth's secure e-mail change); or the error code it refuses with,
 * nothing changed.
 */
export type Outcome = 'done' | 'waits' | string;
export type Cell = Partial<Record<Door, Outcome>>;

/** The rows shared by every session without a second factor and without a fresh e-mailed code. */
const tokenAlone: Record<Action, Cell | undefined> = {
  setPassword: { facade: 'current_password_required', auth: 'current_password_required', admin: 'not_admin' },
  changeEmail: { facade: 'current_password_required', auth: 'waits', admin: 'not_admin' },
  addFactor: { facade: 'invalid_code', auth: 'owner_proof_required' },
  removeFactor: undefined,
  startRecovery: undefined,
  cancelRecovery: undefined,
  endSessions: { facade: 'done', auth: 'done', postgrest: 'done' },
  deleteAccount: { facade: 'invalid_code', postgrest: '42501', admin: 'not_admin' },
};

/** An `aal1` session of an account with a verified factor: only what anonymous may, plus signing out and recovery. */
const stepUpFirst: Record<Action, Cell | undefined> = {
  setPassword: { facade: 'current_password_required', auth: 'insufficient_aal', admin: 'not_admin' },
  changeEmail: { facade: 'current_password_required', auth: 'insufficient_aal', admin: 'not_admin' },
  addFactor: { facade: 'second_factor_required', auth: 'insufficient_aal' },
  removeFactor: { facade: 'second_factor_required', auth: 'insufficient_aal', admin: 'not_admin' },
  startRecovery: { facade: 'invalid_code' },
  cancelRecovery: { facade: 'second_factor_required', postgrest: 'second_factor_required' },
  endSessions: { facade: 'done', auth: 'done', postgrest: 'done' },
  deleteAccount: { facade: 'second_factor_required', postgrest: '42501', admin: 'not_admin' },
};

/** Each cell: what the token of that kind of session does, alone, through each door that offers the action. */
export const matrix: Record<SessionKind, Record<Action, Cell | undefined>> = {
  password: tokenAlone,
  admin: tokenAlone,
  aal1: stepUpFirst,
  aal2: {
    ...tokenAlone,
    removeFactor: { facade: 'done', auth: 'done', admin: 'not_admin' },
    startRecovery: { facade: 'invalid_code' },
    cancelRecovery: { facade: 'done', postgrest: 'done' },
  },
  codeFresh: { ...tokenAlone, setPassword: { facade: 'current_password_required', auth: 'done', admin: 'not_admin' } },
  recoveryLink: {
    ...tokenAlone,
    setPassword: { facade: 'current_password_required', auth: 'done', admin: 'not_admin' },
  },
  codeStale: {
    ...tokenAlone,
    setPassword: { facade: 'current_password_required', auth: 'unexpected_failure', admin: 'not_admin' },
  },
  codeRefreshed: tokenAlone,
  codeWithFactor: stepUpFirst,
  google: tokenAlone,
};

function describeCell(cell: Cell | undefined): string {
  if (!cell) return '—';
  return Object.entries(cell)
    .map(([door, outcome]) => `${door}: ${outcome === 'done' || outcome === 'waits' ? outcome : `\`${outcome}\``}`)
    .join('<br>');
}

/** The matrix as the Markdown table docs/ACCOUNTS-SECURITY.md shows. */
export function matrixMarkdown(): string {
  const header = `| the token of | ${Object.values(actions).join(' | ')} |`;
  const rule = `|${'---|'.repeat(Object.keys(actions).length + 1)}`;
  const rows = (Object.keys(sessionKinds) as SessionKind[]).map((kind) =>
    `| ${sessionKinds[kind]} | ${
      (Object.keys(actions) as Action[]).map((a) => describeCell(matrix[kind][a])).join(' | ')
    } |`
  );
  return [header, rule, ...rows].join('\n');
}
