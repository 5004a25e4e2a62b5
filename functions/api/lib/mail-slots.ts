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
}

/** Null when the slot is taken (the e-mails may go), else why not, as the client may read it. */
export async function takeMailSlot(deps: RequestDeps, slot: MailSlot): Promise<string | null> {
  const [{ refusal }] = await queryAs(
    deps,
    server,
    sql`select private.take_mail_slot(${slot.userId}, ${slot.kind}, ${slot.address}, ${slot.mails}) as refusal`,
  );
  return refusal;
}

/** Gives back a slot whose e-mails could not be sent: the account may ask again at once. */
export async function giveBackMailSlot(deps: RequestDeps, slot: MailSlot): Promise<void> {
  await queryAs(
    deps,
    server,
    sql`select private.give_back_mail_slot(${slot.userId}, ${slot.kind}, ${slot.address}, ${slot.mails})`,
  );
}
