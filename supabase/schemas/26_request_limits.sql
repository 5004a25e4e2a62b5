-- Request limits: how many requests one account, and one client address, may send the facade in a window
-- (docs/PRODUCT.md, "Request limits"), reads included. The counts live here, in the primary, so every facade
-- instance (hosted functions run many isolates) counts into the same rows. The numbers live in
-- private.request_limits: an operator changes one with an UPDATE in Studio, no migration.
--
-- Counted per instance and flushed (functions/api/lib/request-counter.ts): a facade instance takes a key's
-- quota here synchronously (private.take_request_quota, in a transaction of its own at the head of the
-- request's first round trip to the primary) until it knows the key's state in the current window; from then
-- on, while the key is far from its limit, it admits requests itself and writes their counts here in one
-- statement every quarter second at most, a key's once it has 8 unwritten or its oldest has waited 8 s
-- (private.add_request_counts), which answers each key's new total, what the other instances counted included;
-- when a window ends it starts the key's next one itself, from the length this file answers. Near the limit every request takes its quota here again, with the
-- instance's counts written first, so a refusal is exact and its message is this file's. A request that fails
-- still counts (it was admitted before its statements ran). PostgREST runs a GET in a read-only transaction,
-- where nothing can be counted: supabase-js reads are not limited here (their writes meet the write limits);
-- the hosted platform's gateway is where they would be (docs/PRODUCT.md says so).
--
-- Counting: one row per key ('account:<id>', 'address:<ip>') and window, on a fixed grid like the write
-- limits'. The table is unlogged: counts are not worth a WAL record per read, are not replicated, and a crash
-- that empties them only forgives the current window.

create table private.request_limits (
  scope text primary key check (scope in ('account', 'address')),
  max_requests integer not null check (max_requests > 0),
  window_length interval not null check (window_length between interval '1 minute' and interval '1 day'),
  why text not null default ''
);
alter table private.request_limits enable row level security;
comment on table private.request_limits is
  'How many facade requests one signed-in account, and one client address, may send per window. Edit to change a limit.';
comment on column private.request_limits.scope is 'account (a signed-in caller, whatever its address) or address (every caller from one IP address).';
comment on column private.request_limits.max_requests is 'The most requests in one window.';
comment on column private.request_limits.window_length is 'The window''s length; windows start on a fixed grid.';
comment on column private.request_limits.why is 'Why this number: for the next operator.';

insert into private.request_limits (scope, max_requests, window_length, why) values
  ('account', 1500, '5 minutes', 'Five a second for five minutes: a reader scrolling fast, never a scraper. Mastodon allows 1,500 per 5 minutes per account.'),
  ('address', 3000, '5 minutes', 'Many people share an address (a campus, a mobile carrier): twice an account''s. Bluesky allows 3,000 per 5 minutes per address.');

-- Each row is updated again and again through its window: pages half full leave room for the new versions on
-- the same page (a HOT update, no index entry), 73 % of the updates under pgbench against 53 % with full pages.
create unlogged table private.request_counts (
  key text not null,
  window_start timestamptz not null,
  requests integer not null check (requests > 0),
  primary key (key, window_start)
) with (fillfactor = 50);
alter table private.request_counts enable row level security;
create index request_counts_window_idx on private.request_counts (window_start);
comment on table private.request_counts is 'Facade requests per account or address and window (unlogged: lost on a crash, which forgives a window).';
comment on column private.request_counts.key is 'account:<user id> or address:<IP address>.';
comment on column private.request_counts.window_start is 'When the window began (on a grid from 2000-01-01 UTC).';
comment on column private.request_counts.requests is 'Requests counted in the window (a refused one is not).';

revoke all on private.request_limits, private.request_counts from anon, authenticated;

-- Of `p_accounts`, those not limited by account: admins, and trusted accounts (moderation.trust_writer). A set,
-- so that a write of many keys asks once.
create function private.request_limit_exempt(p_accounts uuid[])
returns setof uuid
language sql
stable
set search_path = ''
as $$
  select a.user_id from private.admins a where a.user_id = any (p_accounts)
  union
  select t.user_id from private.trusted_writers t where t.user_id = any (p_accounts)
$$;
revoke execute on function private.request_limit_exempt(uuid[]) from public;
comment on function private.request_limit_exempt(uuid[]) is
  'The accounts of a list exempt from the request limit by account (admins and trusted writers).';

-- Keys' states as the facade keeps them between takes, for `p_keys` [{key, window_start, requests}]: each
-- {key, window_start, reset (seconds to the window's end, rounded up, for the RateLimit-Reset header),
-- ends_in_ms (the same in milliseconds from the transaction's start, so never early on the facade's clock),
-- window_seconds (the window's length: the facade starts the next window itself)} and what is left of its limit
-- once `requests` are counted, {limit, remaining}; requests null: {exempt: true}. A key whose scope has no limit
-- is left out. A set (and jsonb, which plpgsql and a write of many keys both pass), so that a write of many keys
-- calls it once.
create function private.request_key_states(p_keys jsonb)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('key', k.key, 'window_start', k.window_start,
      'reset', greatest(1, ceil(extract(epoch from k.window_start + l.window_length - now()))::integer),
      'ends_in_ms', greatest(0, floor(extract(epoch from k.window_start + l.window_length - now()) * 1000))::bigint,
      'window_seconds', extract(epoch from l.window_length)::integer)
    || case when k.requests is null then jsonb_build_object('exempt', true)
      else jsonb_build_object('limit', l.max_requests, 'remaining', greatest(0, l.max_requests - k.requests)) end), '[]')
  from jsonb_to_recordset(p_keys) as k(key text, window_start timestamptz, requests integer)
    join private.request_limits l on l.scope = split_part(k.key, ':', 1)
$$;
revoke execute on function private.request_key_states(jsonb) from public;
comment on function private.request_key_states(jsonb) is
  'Request limit keys'' windows and what is left of their limits after their counts (none: exempt), as the facade keeps them.';

-- Counts one request of `p_key` under the limit of `p_scope`: answers the key's state, or raises 429
-- too_many_requests with its quota {limit, remaining, reset} (private.fail). A key whose window is new clears
-- the windows that ended, a few hundred rows at a time, so the table holds about one window of keys.
create function private.count_request(p_scope text, p_key text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_limit private.request_limits;
  v_start timestamptz;
  v_requests integer;
  v_state jsonb;
begin
  select * into v_limit from private.request_limits l where l.scope = p_scope;
  if not found then
    return null; -- an operator removed the limit
  end if;
  v_start := private.write_window_start(v_limit.window_length);
  insert into private.request_counts as r (key, window_start, requests) values (p_key, v_start, 1)
  on conflict (key, window_start) do update set requests = r.requests + 1
  returning r.requests into v_requests;
  v_state := private.request_key_states(
    jsonb_build_array(jsonb_build_object('key', p_key, 'window_start', v_start, 'requests', v_requests))) -> 0;
  if v_requests > v_limit.max_requests then
    perform private.fail(429, 'too_many_requests', format('Too many requests: at most %s per %s from one %s; try again in %s',
      v_limit.max_requests, private.describe_interval(v_limit.window_length), p_scope,
      private.describe_interval(make_interval(secs => (v_state ->> 'reset')::integer))),
      jsonb_build_object('limit', v_state -> 'limit', 'remaining', v_state -> 'remaining', 'reset', v_state -> 'reset'));
  end if;
  if v_requests = 1 then
    delete from private.request_counts r
    where r.ctid = any (array(select o.ctid from private.request_counts o where o.window_start < v_start limit 500));
  end if;
  return v_state;
end;
$$;
revoke execute on function private.count_request(text, text) from public;
comment on function private.count_request(text, text) is
  'Counts a request of an account or address key, or raises 429 too_many_requests past the limit of its scope.';

-- A facade request taken synchronously: counted for the signed-in account (none: anonymous) and for the
-- client's address (none: unknown). Answers each key's state, {account, address} (null: no key, or no limit),
-- for the facade to keep; the facade reports the tighter. Exempt accounts (private.request_limit_exempt) are
-- not counted by account; their address still is. Only the facade's login role may call it: it names the
-- account from a token it verified, before taking the caller's role.
create function private.take_request_quota(p_account uuid, p_address inet)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_account jsonb;
  v_address jsonb;
begin
  if exists (select 1 from private.request_limit_exempt(array[p_account])) then
    select private.request_key_states(jsonb_build_array(jsonb_build_object('key', 'account:' || p_account::text,
      'window_start', private.write_window_start(l.window_length)))) -> 0
    into v_account
    from private.request_limits l where l.scope = 'account';
  elsif p_account is not null then
    v_account := private.count_request('account', 'account:' || p_account::text);
  end if;
  if p_address is not null then
    v_address := private.count_request('address', 'address:' || host(p_address));
  end if;
  return jsonb_build_object('account', v_account, 'address', v_address);
end;
$$;
revoke execute on function private.take_request_quota(uuid, inet) from public;
grant usage on schema private to authenticator;
grant execute on function private.take_request_quota(uuid, inet) to authenticator;
comment on function private.take_request_quota(uuid, inet) is
  'Counts a facade request for its account and its client address, or raises 429 too_many_requests (the facade calls it).';

-- The requests a facade instance admitted itself, written in one statement: `p_counts` is
-- [{key, window_start, requests}] with the keys and windows the database named. Counts of a window that has
-- ended are dropped (they limit nothing any more); exempt accounts are not counted. Answers the state of each
-- key counted (or exempt) in the current window, with what every instance counted, for the facade to keep.
-- Never refuses: these requests were admitted. Keys are upserted in their order, as the synchronous take
-- locks account before address, so two instances' writes do not deadlock. Set-based, the helpers called once
-- a write, not once a key (a function with its own search_path is never inlined: a call per row costs more
-- than the row). Only the facade's login role may call it.
create function private.add_request_counts(p_counts jsonb)
returns jsonb
language sql
volatile
security definer
set search_path = ''
as $$
  with sent as (
    select c.key, c.window_start, sum(c.requests)::integer as requests
    from jsonb_to_recordset(p_counts) as c(key text, window_start timestamptz, requests integer)
    where c.requests > 0
    group by c.key, c.window_start
  ),
  current_windows as materialized (
    select l.scope, private.write_window_start(l.window_length) as window_start from private.request_limits l
  ),
  current_counts as materialized (
    select s.key, s.window_start, s.requests
    from sent s
      join current_windows w on w.scope = split_part(s.key, ':', 1) and w.window_start = s.window_start
  ),
  exempt as materialized (
    select 'account:' || e.id::text as key
    from private.request_limit_exempt(array(
      select substr(c.key, 9)::uuid from current_counts c where c.key like 'account:%')) as e(id)
  ),
  counted as (
    insert into private.request_counts as r (key, window_start, requests)
    select c.key, c.window_start, c.requests from current_counts c
    where c.key not in (select e.key from exempt e)
    order by c.key
    on conflict (key, window_start) do update set requests = r.requests + excluded.requests
    returning r.key, r.requests
  )
  select private.request_key_states(coalesce(
    jsonb_agg(jsonb_build_object('key', c.key, 'window_start', c.window_start, 'requests', n.requests)), '[]'))
  from current_counts c
    left join counted n on n.key = c.key
$$;
revoke execute on function private.add_request_counts(jsonb) from public;
grant execute on function private.add_request_counts(jsonb) to authenticator;
comment on function private.add_request_counts(jsonb) is
  'Adds the requests a facade instance admitted itself to their counts, and answers each key''s state (the facade calls it).';

-- Studio: who sends the most requests now -----------------------------------------------------------------

create view moderation.request_counts as
select r.key, r.window_start, r.window_start + l.window_length as window_end, r.requests, l.max_requests,
  r.requests >= l.max_requests as limited
from private.request_counts r
  join private.request_limits l on l.scope = split_part(r.key, ':', 1)
order by r.requests desc;
comment on view moderation.request_counts is 'Facade requests per account and address in the current windows, the busiest first.';
comment on column moderation.request_counts.key is 'account:<user id> or address:<IP address>.';
comment on column moderation.request_counts.window_start is 'When the window began.';
comment on column moderation.request_counts.window_end is 'When it ends.';
comment on column moderation.request_counts.requests is 'Requests counted so far.';
comment on column moderation.request_counts.max_requests is 'The limit of its scope (private.request_limits).';
comment on column moderation.request_counts.limited is 'Whether further requests in the window are refused.';
