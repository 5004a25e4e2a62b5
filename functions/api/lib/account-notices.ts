// A notice of a change of who controls an account (docs/ACCOUNTS-SECURITY.md, "Undoing a change"): recorded with a
// one-use undo code (private.record_account_change, 34_account_changes.sql) and mailed to the address the account
// had before the change. Auth's own notices come through the Send Email hook; the facade's factor recovery sends
// its own.
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { server } from './tokens.ts';

/** The facade's own notices: its factor recovery, started or cancelled. */
export const recoveryNotices = {
  factor_recovery_started: {
    what: 'A removal of your authenticator was started',
    detail: 'A removal of the second factor was started (it goes in 72 hours unless cancelled from a session that ' +
      'proves it)',
  },
  factor_recovery_cancelled: {
    what: 'A removal of your authenticator was cancelled',
    detail: 'A pending removal of the second factor was cancelled',
  },
};

/** Mails a recovery notice to the account's address; a failed mail is logged only (the change stands). */
export async function mailRecoveryNotice(
  deps: RequestDeps,
  account: { id: string; email: string },
  kind: keyof typeof recoveryNotices,
  from: { address: string | undefined; device: string | undefined },
): Promise<void> {
  await mailAccountNotice(deps, {
    userId: account.id,
    kind,
    to: account.email,
    ...recoveryNotices[kind],
    address: from.address ?? '',
    device: from.device ?? '',
  }).catch((error) => {
    console.error(`the ${kind} notice was not sent:`, error instanceof Error ? error.message : error);
  });
}

export interface AccountNotice {
  userId: string;
  /** What changed, as private.account_changes.kind names it. */
  kind: string;
  /** The address the account had before the change. */
  to: string;
  what: string;
  detail: string;
  /** The client address that made the change ('' when unknown). */
  address: string;
  /** The client's User-Agent ('' when unknown: Auth's hook does not name it). */
  device: string;
}

/** Records the change and mails its notice; throws when the mail server fails (the record stays, unused). */
export async function mailAccountNotice(deps: RequestDeps, notice: AccountNotice): Promise<void> {
  const [{ code }] = await queryAs(
    deps,
    server,
    sql`select private.record_account_change(${notice.userId}, ${notice.kind}, ${notice.to}, ${notice.address}) as code`,
  );
  const undoUrl = `${deps.env.SUPABASE_URL.replace(/\/$/, '')}/functions/v1/api/auth/undo?code=${code}`;
  await deps.sendMail({
    template: 'account_changed',
    to: notice.to,
    fields: {
      What: notice.what,
      Detail: notice.detail,
      Email: notice.to,
      When: new Date().toISOString().slice(0, 16).replace('T', ' '),
      ClientAddress: notice.address || 'unknown',
      Device: notice.device.slice(0, 200) || 'unknown',
      UndoURL: undoUrl,
      UndoCode: code,
    },
  });
}
