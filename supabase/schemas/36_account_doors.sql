-- Accounts through the doors that skip the facade (docs/DATABASE.md, "Admins in Studio"): Studio's Authentication
-- page (Auth's admin API with the service key) and its table and SQL editors (as `postgres`, on auth.users). One
-- address is one account whatever its case, and the account's e-mail identity keeps the address the account has;
-- and what the code e-mails may truly say of an account (private.account_mail_facts, which the Send Email hook
-- asks: functions/api/routes/send-email-hook.ts).

-- Supabase Auth keeps addresses in lower case (it lowers what it is given, and finds an account by it) and refuses
-- an address another account has; its unique index on auth.users.email is on the text as written, so an address
-- edited in SQL into another case of another account's passed it, and left an account whose own sign-in could not
-- find it. Here an address is kept in lower case, whoever writes it, and one another account has (in any case) is
-- refused with 409 email_taken. Accounts of SSO (which Auth lets share an address) are left to Auth.
create function private.keep_email_unique()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if tg_op = 'UPDATE' and old.email is not distinct from new.email then
    return new; -- Auth writes every column of the row when it changes any
  end if;
  new.email := lower(btrim(new.email));
  -- Every stored address is in lower case (Auth's, and this trigger's since the migration that lowered the
  -- others), so Auth's index on the address finds the other account.
  if not new.is_sso_user and exists (
    select 1 from auth.users u
    where u.email = new.email and u.id <> new.id and not u.is_sso_user
  ) then
    perform private.fail(409, 'email_taken', 'This e-mail address belongs to another account');
  end if;
  return new;
end;
$$;
revoke execute on function private.keep_email_unique() from public;
comment on function private.keep_email_unique() is
  'Trigger on auth.users: an address is kept in lower case, as Auth keeps it; one another account has, in any case, is refused (409 email_taken).';

create trigger keep_email_unique
before insert or update of email on auth.users
for each row
when (new.email is not null)
execute function private.keep_email_unique();

-- Auth's own doors change an account's address and its e-mail identity together; an edit of auth.users.email in
-- SQL changed the account alone, and the identity kept the old address. The identity follows the account here
-- (Auth's own change finds it in line already).
create function private.keep_email_identity_in_line()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update auth.identities i
  set identity_data = i.identity_data || jsonb_build_object('email', new.email), updated_at = now()
  where i.user_id = new.id and i.provider = 'email' and (i.identity_data ->> 'email') is distinct from new.email;
  return null;
end;
$$;
revoke execute on function private.keep_email_identity_in_line() from public;
comment on function private.keep_email_identity_in_line() is
  'Trigger on auth.users: a changed address is the e-mail identity''s too.';

create trigger keep_email_identity_in_line
after update of email on auth.users
for each row
when (new.email is not null and old.email is distinct from new.email)
execute function private.keep_email_identity_in_line();

-- What a code e-mail may say of the account it goes to: whether its owner knows a password (not when the account
-- still has the unknowable one it was given: an invitee, a Google sign-up), and whether it has a verified second
-- factor (a session begun by a link or a code must then step up before it sets a password or reads as the
-- owner). The Send Email hook picks the template by them. For the server alone (the hook runs as service_role).
create function private.account_mail_facts(p_user_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return (
    select jsonb_build_object(
      'has_password', coalesce(u.encrypted_password, '') <> '' and not exists (
        select 1 from private.unknowable_passwords p
        where p.user_id = u.id and p.encrypted_password = u.encrypted_password),
      'has_factor', exists (select 1 from auth.mfa_factors f where f.user_id = u.id and f.status = 'verified'))
    from auth.users u
    where u.id = p_user_id);
end;
$$;
revoke execute on function private.account_mail_facts(uuid) from public;
grant execute on function private.account_mail_facts(uuid) to service_role;
comment on function private.account_mail_facts(uuid) is
  'Whether the account''s owner knows a password, and whether it has a verified second factor: what its code e-mails may say.';
