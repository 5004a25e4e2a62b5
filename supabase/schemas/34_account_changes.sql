-- The mailbox wins back (docs/ACCOUNTS-SECURITY.md, "Undoing a change"). Every change of who controls an account
-- that Supabase Auth makes (a password set or changed, an e-mail changed, an authenticator added or removed) is
-- mailed at once to the address the account had before it, through Auth's notification e-mails and the Send
-- Email hook. The hook records the change here and puts a one-use undo code in the e-mail, good for 7 days. Undoing
-- ends every session of the account, gives it back its previous address, removes the authenticators of an account
-- that had none before the change (a thief with the password could add one; on an account with a factor only its
-- holder can), cancels a factor removal asked for since, and leaves the account with an unknowable password: its
-- owner chooses a new one with a reset code from that mailbox.

create table private.account_changes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null constraint account_changes_kind_check check (kind in (
    'password_changed', 'email_changed', 'mfa_factor_enrolled', 'mfa_factor_unenrolled',
    'factor_recovery_started', 'factor_recovery_cancelled')),
  changed_at timestamptz not null default now(),
  previous_email text not null,
  client_address text not null default '',
  had_factor boolean not null,
  undo_code_hash text not null unique,
  undone_at timestamptz
);
create index account_changes_user_id_idx on private.account_changes (user_id);
alter table private.account_changes enable row level security;
revoke all on private.account_changes from anon, authenticated;
comment on table private.account_changes is 'Changes of who controls an account, as mailed to its owner, each with a one-use undo code good for 7 days.';
comment on column private.account_changes.user_id is 'The account.';
comment on column private.account_changes.kind is 'What changed, as Auth names its notification e-mail (the facade''s factor recovery: factor_recovery_started, factor_recovery_cancelled).';
comment on column private.account_changes.changed_at is 'When the notice was sent (the change itself, give or take its transaction).';
comment on column private.account_changes.previous_email is 'The address the notice went to: the account''s before the change, which an undo restores.';
comment on column private.account_changes.client_address is 'The client address Auth named for the change (empty when unknown).';
comment on column private.account_changes.had_factor is 'Whether the account had a verified authenticator before the change.';
comment on column private.account_changes.undo_code_hash is 'SHA-256 of the undo code (hex); the code itself is only in the e-mail.';
comment on column private.account_changes.undone_at is 'When the change was undone; a code works once.';

-- The Send Email hook's record of a notice it is about to send; answers the undo code for the e-mail.
create function private.record_account_change(p_user_id uuid, p_kind text, p_previous_email text, p_address text)
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_code text := encode(extensions.gen_random_bytes(16), 'hex');
  v_had_factor boolean;
begin
  -- An authenticator just added is verified already: it does not count as one the account had.
  v_had_factor := exists (select 1 from auth.mfa_factors f
                          where f.user_id = p_user_id and f.status = 'verified'
                            and (p_kind <> 'mfa_factor_enrolled' or f.updated_at < now() - interval '1 minute'));
  insert into private.account_changes (user_id, kind, previous_email, client_address, had_factor, undo_code_hash)
  values (p_user_id, p_kind, p_previous_email, coalesce(p_address, ''), v_had_factor,
          encode(extensions.digest(v_code, 'sha256'), 'hex'));
  return v_code;
end;
$$;
revoke execute on function private.record_account_change(uuid, text, text, text) from public;
grant execute on function private.record_account_change(uuid, text, text, text) to service_role;
comment on function private.record_account_change(uuid, text, text, text) is
  'Records a change of who controls an account and answers the undo code its notice carries.';

-- Undoes a change with the code its notice carried, once and within 7 days: every session ends, the previous
-- address comes back (unless another account took it since), the authenticators of an account that had none go,
-- a factor removal asked for since is cancelled, and the password becomes unknowable. Unknown, used and expired
-- codes get one answer.
create function private.undo_account_change(p_code text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_change private.account_changes;
  v_email_restored boolean := false;
begin
  select * into v_change from private.account_changes c
  where c.undo_code_hash = encode(extensions.digest(coalesce(p_code, ''), 'sha256'), 'hex')
    and c.undone_at is null and c.changed_at > now() - interval '7 days'
  for update;
  if not found then
    perform private.fail(404, 'undo_code_invalid', 'No change to undo with this code: it is wrong, used, or older than 7 days');
  end if;
  update private.account_changes c set undone_at = now() where c.id = v_change.id;

  delete from auth.sessions s where s.user_id = v_change.user_id;
  if not v_change.had_factor then
    delete from auth.mfa_factors f where f.user_id = v_change.user_id;
  end if;
  delete from private.factor_recoveries r where r.user_id = v_change.user_id and r.requested_at >= v_change.changed_at - interval '1 minute';

  if not exists (select 1 from auth.users u where lower(u.email) = lower(v_change.previous_email) and u.id <> v_change.user_id) then
    update auth.users u set email = v_change.previous_email, email_change = '', email_change_token_new = '',
      email_change_token_current = '', email_change_confirm_status = 0
    where u.id = v_change.user_id and u.email is distinct from v_change.previous_email;
    v_email_restored := found;
    update auth.identities i set identity_data = i.identity_data || jsonb_build_object('email', v_change.previous_email)
    where i.user_id = v_change.user_id and i.provider = 'email';
  end if;
  -- Empty becomes unknowable (private.give_unknowable_password), so only a reset code sets the next one.
  update auth.users u set encrypted_password = '' where u.id = v_change.user_id;

  return jsonb_build_object('undone', v_change.kind, 'email', v_change.previous_email, 'email_restored', v_email_restored);
end;
$$;
revoke execute on function private.undo_account_change(text) from public;
grant execute on function private.undo_account_change(text) to service_role;
comment on function private.undo_account_change(text) is
  'Undoes a mailed change with its code, once, within 7 days: sessions end, the address comes back, added factors go, the password becomes unknowable.';
