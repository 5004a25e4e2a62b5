-- Written by hand from supabase/schemas/07_accounts_and_codes.sql (all new): the Send Email hook sends a signed
-- call's e-mails once, whatever replays it (issue 51).

-- Auth signs each call of the Send Email hook (Standard Webhooks) with an id, and may call again with the same
-- one (after its 5 s timeout, say); a signature stays good for 5 minutes, so anyone who saw a signed request could
-- also send it again. The hook sends the e-mails of an id once: a delivery is taken here first, and given back
-- only when the mail server failed (so Auth's next call sends them). Ids older than 10 minutes are forgotten.
create table private.hook_deliveries (
  webhook_id text primary key,
  received_at timestamptz not null default now()
);
alter table private.hook_deliveries enable row level security;
revoke all on private.hook_deliveries from anon, authenticated;
comment on table private.hook_deliveries is 'The Send Email hook''s calls of the last 10 minutes, by Standard Webhooks id: each is sent once.';
comment on column private.hook_deliveries.webhook_id is 'The webhook-id header of Auth''s signed call.';
comment on column private.hook_deliveries.received_at is 'When the hook first took it.';

create function private.take_hook_delivery(p_webhook_id text)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with forgotten as (
    delete from private.hook_deliveries d where d.received_at < now() - interval '10 minutes'
  )
  insert into private.hook_deliveries (webhook_id) values (p_webhook_id)
  on conflict (webhook_id) do nothing
  returning true;
$$;
revoke execute on function private.take_hook_delivery(text) from public;
grant execute on function private.take_hook_delivery(text) to service_role;
comment on function private.take_hook_delivery(text) is
  'True the first time the Send Email hook takes a call id (null after): its e-mails are sent once.';

create function private.give_back_hook_delivery(p_webhook_id text)
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from private.hook_deliveries d where d.webhook_id = p_webhook_id;
$$;
revoke execute on function private.give_back_hook_delivery(text) from public;
grant execute on function private.give_back_hook_delivery(text) to service_role;
comment on function private.give_back_hook_delivery(text) is
  'Forgets a call id whose e-mails could not be sent, so Auth''s next call with it sends them.';
