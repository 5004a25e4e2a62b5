-- Issue 55: a key's state tells the facade exactly when its window ends and how long windows are, so the facade
-- starts the next window itself at the boundary instead of sending every request of a window's last second (and
-- the first of the next) to the primary to take its quota there, where a busy key's requests queued on its row.
-- Keys' states as the facade keeps them between takes, for `p_keys` [{key, window_start, requests}]: each
-- {key, window_start, reset (seconds to the window's end, rounded up, for the RateLimit-Reset header),
-- ends_in_ms (the same in milliseconds from the transaction's start, so never early on the facade's clock),
-- window_seconds (the window's length: the facade starts the next window itself)} and what is left of its limit
-- once `requests` are counted, {limit, remaining}; requests null: {exempt: true}. A key whose scope has no limit
-- is left out. A set (and jsonb, which plpgsql and a write of many keys both pass), so that a write of many keys
-- calls it once.
create or replace function private.request_key_states(p_keys jsonb)
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
