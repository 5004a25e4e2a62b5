// The database's slots for code e-mails (private.take_mail_slot: once a minute per account and kind, a share per
// client address, a budget for the project), taken whoever sends the e-mail: Auth's Send Email hook for Auth's
// own, the facade for its one-time codes (functions/api/lib/codes.ts).
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { server } from './tokens.ts';

export interface MailSlot {
  userId: string;
  /** Auth's email_action_type (the facade's one-time codes count as `magiclink`: one token in Auth). */
  kind: string;
  /** The client that asked, as Auth or the gateway names it ('' when unknown). */
  address: string;
  mails: number;
  /** For an e-mail change, the new address (one such code a minute to it, whichever account asks). */
  newEmail?: string;
}

/** Null when the slot is taken (the e-mails may go), else why not, as the client may read it. */
export async function takeMailSlot(deps: RequestDeps, slot: MailSlot): Promise<string | null> {
  const [{ refusal }] = await queryAs(
    deps,
    server,
    sql`select private.take_mail_slot(${slot.userId}, ${slot.kind}, ${slot.address}, ${slot.mails}, ${
      slot.newEmail ?? ''
    }) as refusal`,
  );
  return refusal;
}

/** Gives back a slot whose e-mails could not be sent: the account may ask again at once. */
export async function giveBackMailSlot(deps: RequestDeps, slot: MailSlot): Promise<void> {
  await queryAs(
    deps,
    server,
    sql`select private.give_back_mail_slot(${slot.userId}, ${slot.kind}, ${slot.address}, ${slot.mails}, ${
      slot.newEmail ?? ''
    })`,
  );
}

/**
 * Whether this is the first call of the hook with `webhookId` (Standard Webhooks' id) in 10 minutes: the e-mails of
 * a signed call go once, however often it is replayed (private.take_hook_delivery).
 */
export async function takeHookDelivery(deps: RequestDeps, webhookId: string): Promise<boolean> {
  const [{ taken }] = await queryAs(deps, server, sql`select private.take_hook_delivery(${webhookId}) as taken`);
  return taken === true;
}

/** Forgets a call whose e-mails the mail server did not take, so that Auth's next call with its id sends them. */
export async function giveBackHookDelivery(deps: RequestDeps, webhookId: string): Promise<void> {
  await queryAs(deps, server, sql`select private.give_back_hook_delivery(${webhookId})`);
}

/** What a code e-mail may say of the account it goes to (private.account_mail_facts). */
export interface MailFacts {
  /** Its owner knows a password (not the unknowable one an invitee or a Google sign-up was given). */
  has_password: boolean;
  /** It has a verified second factor: a session begun by a link or a code steps up before it may do more. */
  has_factor: boolean;
}

/** The account's facts, or null for an account Auth has not committed yet (its hook call comes first). */
export async function accountMailFacts(deps: RequestDeps, userId: string): Promise<MailFacts | null> {
  const [{ facts }] = await queryAs(deps, server, sql`select private.account_mail_facts(${userId}) as facts`);
  return facts as MailFacts | null;
}
