-- The accounts: auth.users rows as Supabase Auth would hold them for confirmed e-mail sign-ups (they never
-- sign in: no password), and their profiles (the sign-up trigger is off during the load). One in ten of the
-- crowd is private; a handful are banned, in Auth and on the profile, as a moderator's ban leaves them.
\ir sizes.sql
create temporary table bench_users as
select n,
  pg_temp.bench_id('user', n) as id,
  case n when 1 then 'celebrity' when 2 then 'diarist' when 3 then 'hot_author' when 4 then 'follow_target'
    when 5 then 'prolific' when 6 then 'sparse_reader' when 7 then 'fan_reader' when 8 then 'leaver'
    else 'u' || n end as username,
  n > 10 and n % 10 = 7 as is_private,
  n = 12 or n % 20000 = 12 as banned
from generate_series(1, :users) n
where n <= 8 or n > 10;

insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, confirmation_token, recovery_token,
  email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, banned_until
)
select '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', username || '@bench.daykeeper.test',
  '', date_trunc('day', now()) - interval '800 days', '', '', '', '', '{"provider": "email", "providers": ["email"]}',
  jsonb_build_object('username', username), now() - interval '800 days', now(),
  case when banned then now() + interval '100 years' end
from bench_users
order by id;

-- confirmed_at copies Auth's email_confirmed_at (the sign-up trigger's copy): the same instant in both, whole days
-- so that the two statements, each its own transaction, agree (moderation.integrity_report() checks it).
insert into public.profiles (id, username, display_name, is_private, confirmed_at, banned_at, created_at)
select id, username, 'User ' || n, is_private, date_trunc('day', now()) - interval '800 days', case when banned then now() end,
  now() - interval '800 days'
from bench_users
order by id;

-- Sessions for the readers the growth targets measure as (private.uid() wants a live session).
insert into auth.sessions (id, user_id, created_at, updated_at)
select pg_temp.bench_id('session', n), id, now(), now()
from bench_users
where username in ('sparse_reader', 'fan_reader');
