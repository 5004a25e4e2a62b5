-- Written by hand from supabase/schemas/33_credential_changes.sql and 36_account_doors.sql (issue 53): one address
-- per account whatever its case, through every door, the e-mail identity in line with the account; and the marker
-- of the unknowable passwords, so the code e-mails say what is true of the account they go to.

-- The unknowable passwords given, each while it is the account's: the code e-mails tell an account whose owner
-- knows no password from one whose owner does (private.account_mail_facts, 36_account_doors.sql). A password set
-- since (a reset, an admin) is another hash, so the row no longer matches; the row goes with the account. The key
-- is checked at commit: the row is written before Auth's insert of the account.
create table private.unknowable_passwords (
  user_id uuid primary key references auth.users (id) on delete cascade deferrable initially deferred,
  encrypted_password text not null
);
alter table private.unknowable_passwords enable row level security;

comment on table private.unknowable_passwords is
  'The unknowable password each account without one was given (its hash): while it is the account''s, its owner knows no password.';
comment on column private.unknowable_passwords.encrypted_password is 'The hash given; the account has another once a password is set.';

create or replace function private.give_unknowable_password()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  -- bcrypt at Auth's own cost, so a wrong password takes as long to refuse as for any account.
  new.encrypted_password := extensions.crypt(
    encode(extensions.gen_random_bytes(32), 'base64'), extensions.gen_salt('bf', 10));
  insert into private.unknowable_passwords (user_id, encrypted_password)
  values (new.id, new.encrypted_password)
  on conflict (user_id) do update set encrypted_password = excluded.encrypted_password;
  return new;
end;
$$;
revoke execute on function private.give_unknowable_password() from public;
comment on function private.give_unknowable_password() is
  'Trigger on auth.users: an account without a password gets an unknowable one (recorded in private.unknowable_passwords), so Auth asks the current password before any change.';

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

-- The unknowable passwords given before this table, where the e-mails need them: an invitee who has not accepted
-- yet (accepting, or a reset, is how an invitee sets a password). Only an account not yet confirmed gets a
-- confirmation or an invitation, the e-mails that ask.
insert into private.unknowable_passwords (user_id, encrypted_password)
select u.id, u.encrypted_password
from auth.users u
where coalesce(u.encrypted_password, '') <> '' and u.invited_at is not null and u.email_confirmed_at is null
on conflict (user_id) do nothing;

-- Addresses written in another case before (an edit in SQL) are lowered, unless another account has the address:
-- such a pair is left as it is, for an admin to settle. Identities left behind by such an edit follow their account.
update auth.users u
set email = lower(btrim(u.email))
where u.email <> lower(btrim(u.email))
  and not exists (select 1 from auth.users o where o.id <> u.id and lower(o.email) = lower(btrim(u.email)));

update auth.identities i
set identity_data = i.identity_data || jsonb_build_object('email', u.email), updated_at = now()
from auth.users u
where i.user_id = u.id and i.provider = 'email' and u.email is not null
  and (i.identity_data ->> 'email') is distinct from u.email;

-- The integrity report names what the triggers above now prevent, when a load with triggers off left it.
create or replace function moderation.integrity_report()
returns table (problem text, element_type text, element_id uuid, detail text, repair text)
language sql
stable
security definer
set search_path = ''
as $$
  with follow_counts as (
    select p.id,
      (select count(*) from public.follows f where f.followee_id = p.id and f.status = 'accepted') as followers,
      (select count(*) from public.follows f where f.follower_id = p.id and f.status = 'accepted') as following,
      (select count(*) from public.posts x where x.author_id = p.id) as posts,
      p.followers_count, p.following_count, p.posts_count
    from public.profiles p
  )
  select 'counter', 'user', c.id,
    format('followers %s (rows %s), following %s (rows %s), posts %s (rows %s)',
      c.followers_count, c.followers, c.following_count, c.following, c.posts_count, c.posts),
    'select private.recount_counters()'
  from follow_counts c
  where (c.followers_count, c.following_count, c.posts_count) is distinct from (c.followers::integer, c.following::integer, c.posts::integer)
  union all
  select 'counter', 'post', p.id, format('likes %s (rows %s), comments %s (rows %s)', p.likes_count, l.n, p.comments_count, x.n),
    'select private.recount_counters()'
  from public.posts p
  cross join lateral (select count(*)::integer as n from public.post_likes l where l.post_id = p.id) l
  cross join lateral (select count(*)::integer as n from public.comments x where x.post_id = p.id) x
  where (p.likes_count, p.comments_count) is distinct from (l.n, x.n)
  union all
  select 'counter', 'comment', c.id, format('likes %s (rows %s), replies %s (rows %s)', c.likes_count, l.n, c.replies_count, r.n),
    'select private.recount_counters()'
  from public.comments c
  cross join lateral (select count(*)::integer as n from public.comment_likes l where l.comment_id = c.id) l
  cross join lateral (select count(*)::integer as n from public.comments r where r.parent_id = c.id) r
  where (c.likes_count, c.replies_count) is distinct from (l.n, r.n)
  union all
  select 'ban state', 'user', p.id,
    format('@%s: profile %s, Auth %s', p.username, case when p.banned_at is null then 'not banned' else 'banned' end,
      case when coalesce(u.banned_until > now(), false) then 'banned' else 'not banned' end),
    case when p.banned_at is null then format('select moderation.ban_user(%L, ''<reason>'')', p.username)
      else format('select moderation.unban_user(%L, ''<reason>'')', p.username) end
  from public.profiles p join auth.users u on u.id = p.id
  where (p.banned_at is not null) <> coalesce(u.banned_until > now(), false)
  union all
  select 'relation across a block', 'user', r.first_id, format('%s of %s by %s', r.relation, r.second_id, r.first_id),
    format('delete from public.%s where %s', r.relation, r.condition)
  from (
    select 'follows' as relation, f.follower_id as first_id, f.followee_id as second_id,
      format('follower_id = %L and followee_id = %L', f.follower_id, f.followee_id) as condition
    from public.follows f
    where exists (select 1 from public.blocks b where (b.blocker_id, b.blocked_id) in ((f.follower_id, f.followee_id), (f.followee_id, f.follower_id)))
    union all
    select 'close_friends', c.owner_id, c.friend_id, format('owner_id = %L and friend_id = %L', c.owner_id, c.friend_id)
    from public.close_friends c
    where exists (select 1 from public.blocks b where (b.blocker_id, b.blocked_id) in ((c.owner_id, c.friend_id), (c.friend_id, c.owner_id)))
  ) r
  union all
  select 'reports summary', coalesce(t.target_type, e.target_type)::text, coalesce(t.target_id, e.target_id),
    format('summary %s, reports %s', coalesce(e.reports_count, 0), coalesce(t.n, 0)), 'select private.resummarize_reports()'
  from (
    select r.target_type, coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) as target_id,
      count(*)::integer as n, max(r.created_at) as latest
    from public.reports r group by 1, 2
  ) t
  full join private.reported_elements e on e.target_type = t.target_type and e.target_id = t.target_id
  where (e.reports_count, e.latest_at) is distinct from (t.n, t.latest)
  union all
  select 'confirmation', 'user', p.id, format('@%s: profile %s, Auth %s', p.username, p.confirmed_at, u.email_confirmed_at),
    format('update public.profiles p set confirmed_at = u.email_confirmed_at from auth.users u where u.id = p.id and p.id = %L', p.id)
  from public.profiles p join auth.users u on u.id = p.id
  where p.confirmed_at is distinct from u.email_confirmed_at
  union all
  select 'reserved username', 'user', p.id, format('@%s is reserved', p.username),
    format('update public.profiles set username = ''<another>'' where id = %L', p.id)
  from public.profiles p join private.reserved_usernames r on r.name = p.username
  union all
  select 'account without profile', 'user', u.id, coalesce(u.email, ''),
    format('delete from auth.users where id = %L', u.id)
  from auth.users u
  where not exists (select 1 from public.profiles p where p.id = u.id)
  union all
  select 'e-mail', 'user', u.id,
    case when o.id is null then format('%s is not in lower case', u.email)
      else format('%s is also the address of account %s', u.email, o.id) end,
    case when o.id is null then format('update auth.users set email = lower(email) where id = %L', u.id)
      else format('update auth.users set email = ''<another address>'' where id = %L', u.id) end
  from auth.users u
  left join lateral (
    select x.id from auth.users x
    where x.id <> u.id and not x.is_sso_user and lower(x.email) = lower(u.email)
    limit 1) o on true
  where u.email is not null and not u.is_sso_user and (u.email <> lower(u.email) or o.id is not null)
  union all
  select 'e-mail identity', 'user', u.id, format('account %s, e-mail identity %s', u.email, i.identity_data ->> 'email'),
    format('update auth.identities set identity_data = identity_data || jsonb_build_object(''email'', %L) where id = %L',
      u.email, i.id)
  from auth.users u join auth.identities i on i.user_id = u.id and i.provider = 'email'
  where u.email is not null and (i.identity_data ->> 'email') is distinct from u.email
$$;
comment on function moderation.integrity_report() is
  'Every row that breaks an invariant (counters, ban state, relations across a block, the reports'' summary, confirmation, usernames, e-mail addresses and identities), with its repair; empty when all is well.';
