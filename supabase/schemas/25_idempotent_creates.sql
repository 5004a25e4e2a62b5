-- Idempotent creates: a client that never got the answer to a create (a post, a comment or reply, a report)
-- sends it again with the same Idempotency-Key and gets the first answer back; nothing is created twice
-- (docs/PRODUCT.md, "Idempotent creates"). Kept in the database, so a retry that reaches another facade
-- instance is caught too. The facade runs a create as
--   coalesce(private.replay_idempotent(key, fingerprint), private.record_idempotent(key, public.create_…(…)))
-- and COALESCE evaluates the create only when there is nothing to replay.

create table private.idempotent_requests (
  user_id uuid not null references auth.users (id) on delete cascade,
  key text not null check (char_length(key) between 1 and 255),
  fingerprint text not null,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (user_id, key)
);
alter table private.idempotent_requests enable row level security;
revoke all on private.idempotent_requests from anon, authenticated;
create index idempotent_requests_age_idx on private.idempotent_requests (user_id, created_at);
comment on table private.idempotent_requests is 'Creates sent with an Idempotency-Key in the last day, and their answers.';
comment on column private.idempotent_requests.user_id is 'Who sent it (keys are each account''s own).';
comment on column private.idempotent_requests.key is 'The Idempotency-Key header.';
comment on column private.idempotent_requests.fingerprint is 'The request it was sent with (method, path, body), hashed by the facade.';
comment on column private.idempotent_requests.response is 'The first answer, given again to a retry.';
comment on column private.idempotent_requests.created_at is 'When the key was first used; it lasts a day.';

-- The first answer to a create already made with this key by the caller, or null when there is none (the
-- caller then creates and records). Taking the key waits for a create with the same key in flight, so two
-- retries at once create once. The same key with another request is a 409.
create function private.replay_idempotent(p_key text, p_fingerprint text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_uid();
  v_prior private.idempotent_requests;
begin
  -- A key lasts a day: the caller's older ones go first.
  delete from private.idempotent_requests r where r.user_id = v_uid and r.created_at < now() - interval '1 day';
  insert into private.idempotent_requests (user_id, key, fingerprint) values (v_uid, p_key, p_fingerprint)
  on conflict do nothing;
  if found then
    return null;
  end if;
  select * into v_prior from private.idempotent_requests r where r.user_id = v_uid and r.key = p_key;
  if v_prior.fingerprint is distinct from p_fingerprint then
    perform private.fail(409, 'idempotency_key_reused',
      'This Idempotency-Key was sent with another request: send a new key with a new request');
  end if;
  return v_prior.response;
end;
$$;
revoke execute on function private.replay_idempotent(text, text) from public;
grant execute on function private.replay_idempotent(text, text) to authenticated;
comment on function private.replay_idempotent(text, text) is
  'The first answer to the caller''s create with this Idempotency-Key, or null (then create and record); 409 for another request.';

create function private.record_idempotent(p_key text, p_response jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update private.idempotent_requests r set response = p_response where r.user_id = private.uid() and r.key = p_key;
  return p_response;
end;
$$;
revoke execute on function private.record_idempotent(text, jsonb) from public;
grant execute on function private.record_idempotent(text, jsonb) to authenticated;
comment on function private.record_idempotent(text, jsonb) is 'Keeps the answer of a create made with an Idempotency-Key, and returns it.';
