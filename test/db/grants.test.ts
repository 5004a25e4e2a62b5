// Nobody may call a function or touch a table unless a migration granted it, whatever the project's defaults.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('privileges', () => {
  it('the e-mail behind a username, pending sign-ups and banned addresses are for the server (service_role) alone', async () => {
    const member = await createAccount('member');
    for (const actor of [anon, member]) {
      // Each call starts when awaited: a refusal nobody awaits yet would be an unhandled rejection.
      for (
        const lookup of [
          () => as(actor, (tx) => tx`select private.email_for_login(${member.username})`),
          () => as(actor, (tx) => tx`select private.awaits_confirmation(${member.email})`),
          () => as(actor, (tx) => tx`select private.refuse_banned_email(${member.email})`),
        ]
      ) {
        expect([actor.name, (await errorOf(lookup())).code]).toEqual([actor.name, '42501']);
      }
    }
    const [row] = await asRoot.begin(async (tx) => {
      await tx`set local role service_role`;
      return tx`select private.email_for_login(${member.username}) as email`;
    });
    expect(row.email).toBe(member.email);
  });

  it('a new function or table of the migration role is granted to nobody by default', async () => {
    let granted: Record<string, boolean> | undefined;
    const rollback = new Error('rollback');
    await asRoot.begin(async (tx) => {
      await tx`create function public.probe_default_grants() returns int language sql as 'select 1'`;
      await tx`create function private.probe_default_grants() returns int language sql as 'select 1'`;
      await tx`create table public.probe_default_grants (id int)`;
      [granted] = await tx`
        select
          has_function_privilege('anon', 'public.probe_default_grants()', 'execute') as anon_public,
          has_function_privilege('authenticated', 'private.probe_default_grants()', 'execute') as authenticated_private,
          has_table_privilege('authenticated', 'public.probe_default_grants', 'insert, update, select') as authenticated_table,
          has_function_privilege('postgres', 'public.probe_default_grants()', 'execute') as owner`;
      throw rollback;
    }).catch((error) => {
      if (error !== rollback) throw error;
    });
    expect(granted).toEqual({
      anon_public: false,
      authenticated_private: false,
      authenticated_table: false,
      owner: true,
    });
  });
});
