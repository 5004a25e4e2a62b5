-- The dataset behind the feed and search timings of the README: 100,000 accounts (one in ten private), 1,000,000
-- posts over a year (one in ten close friends, one in ten private), twenty follows per account, and bench accounts
-- 1, 2 and 3 following 1,000, 5 and no accounts, each with a session so that private.uid() knows them.
-- Run it as the superuser against a THROWAWAY database built from the migrations, never one with real users:
--   psql <superuser url of that database> -f sql/bench/social_scale.sql      (about three minutes)
-- It writes rows directly, triggers off (session_replication_role), then recounts the counters. To act as bench
-- account n: set role authenticated, and request.jwt.claims to {"sub": id, "session_id": id, "role": "authenticated"}
-- with id = '00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0').
set session_replication_role = replica;
-- Account n's id.
create or replace function pg_temp.u(g integer) returns uuid language sql immutable as $$ select ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid $$;
insert into auth.users (id, instance_id, aud, role, email, email_confirmed_at, created_at, updated_at)
select pg_temp.u(g), '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated',
  'u' || g || '@bench.local', now(), now(), now()
from generate_series(1, 100000) g;
insert into public.profiles (id, username, display_name, time_zone, confirmed_at, is_private)
select pg_temp.u(g), 'user' || g, (array['Ann','Ben','Cleo','Dan','Eva','Finn','Gus'])[1 + g % 7] || ' ' || md5(g::text)::text,
  'UTC', now(), g % 10 = 0
from generate_series(1, 100000) g;
insert into public.posts (author_id, body, privacy, day, created_at)
select pg_temp.u(1 + (random() * 99999)::int),
  'post ' || g || ' about ' || (array['coffee','rain','work','sea','music','books','garden'])[1 + g % 7] || ' and ' || md5(g::text),
  (case when g % 10 = 0 then 'close_friends' when g % 10 = 1 then 'private' else 'public' end)::public.post_privacy,
  t::date, t
-- (g in the lateral makes it draw a time per post)
from generate_series(1, 1000000) g, lateral (select now() - random() * interval '365 days' + g * interval '0 microseconds' as t) x;
-- Account 1 follows 1,000 accounts, account 2 five, account 3 none; every other account twenty at random.
insert into public.follows (follower_id, followee_id, status)
select pg_temp.u(1), pg_temp.u(g), 'accepted' from generate_series(1000, 100000, 99) g limit 1000;
insert into public.follows (follower_id, followee_id, status)
select pg_temp.u(2), pg_temp.u(g), 'accepted' from generate_series(500, 504) g;
insert into public.follows (follower_id, followee_id, status)
select distinct on (f, e) pg_temp.u(f), pg_temp.u(e), 'accepted'
from (select f, 4 + (random() * 99995)::int as e from generate_series(4, 100000) f, generate_series(1, 20)) x where f <> e
on conflict do nothing;
-- Some posts (about 7%) mention an account.
insert into public.post_mentions (post_id, user_id)
select p.id, pg_temp.u(1 + abs(hashtext(p.id::text)) % 99999) from public.posts p where abs(hashtext(p.id::text)) % 10 = 0
on conflict do nothing;
-- A hundred blocks.
insert into public.blocks (blocker_id, blocked_id) select pg_temp.u(g), pg_temp.u(g + 1) from generate_series(10, 100000, 1000) g;
set session_replication_role = origin;
select private.recount_counters() as counters_fixed;
insert into auth.sessions (id, user_id, created_at) select pg_temp.u(g), pg_temp.u(g), now() from generate_series(1, 3) g;
vacuum analyze;
