-- Written by hand from supabase/schemas/07_accounts_and_codes.sql: one e-mail-change code a minute to a new address
-- whatever the number of accounts asking, and a slice of the project's hourly budget for sign-ups, so a flood of
-- them never stops existing accounts' codes (issue 51).

alter table private.mail_limits drop constraint mail_limits_scope_check;
alter table private.mail_limits add constraint mail_limits_scope_check check (scope in ('address', 'project', 'signups'));
comment on column private.mail_limits.scope is 'address (every request from one client address), project (all of them), or signups (the part of project that sign-up and invitation codes may take).';
insert into private.mail_limits (scope, max_mails, why) values
  ('signups', 600, 'The part of the project''s hour sign-up and invitation codes may take: a flood of sign-ups leaves 400 for the codes of existing accounts.');
comment on column private.mail_counts.key is 'address:<IPv4 address or IPv6 /64>, address:unknown, project, or project:signups.';

-- The last e-mail-change code to each new address (lower case), whichever account asked: a minute's worth.
create table private.recipient_mails (
  recipient text primary key,
  sent_at timestamptz not null default now()
);
alter table private.recipient_mails enable row level security;
create index recipient_mails_sent_at_idx on private.recipient_mails (sent_at);
comment on table private.recipient_mails is 'When an e-mail-change code last went to each new address, whichever account asked (a minute''s worth).';
revoke all on private.recipient_mails from anon, authenticated;

drop function private.take_mail_slot(uuid, text, text, integer);
drop function private.give_back_mail_slot(uuid, text, text, integer);

create function private.take_mail_slot(p_user_id uuid, p_kind text, p_address text, p_mails integer, p_new_email text default '')
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_limits jsonb;
begin
  select jsonb_object_agg(l.scope, l.max_mails) into v_limits from private.mail_limits l;
  begin
    insert into private.code_mails as m (user_id, kind) values (p_user_id, p_kind)
    on conflict (user_id, kind) do update set sent_at = now()
    where m.sent_at <= now() - interval '60 seconds';
    if not found then
      raise exception using errcode = 'PT429', message = 'An e-mail of this kind was sent less than a minute ago: use its code, or ask again in a minute';
    end if;
    if p_kind = 'email_change' and coalesce(p_new_email, '') <> '' then
      insert into private.recipient_mails as r (recipient) values (lower(p_new_email))
      on conflict (recipient) do update set sent_at = now()
      where r.sent_at <= now() - interval '60 seconds';
      if not found then
        raise exception using errcode = 'PT429', message = 'An e-mail of this kind was sent less than a minute ago: use its code, or ask again in a minute';
      end if;
    end if;
    if v_limits ? 'address' then
      perform private.count_mails(private.mail_address_key(p_address), p_mails, (v_limits ->> 'address')::integer,
        'Too many e-mails requested from your address this hour: try again later');
    end if;
    if p_kind in ('signup', 'invite') and v_limits ? 'signups' then
      perform private.count_mails('project:signups', p_mails, (v_limits ->> 'signups')::integer,
        'Too many sign-ups this hour: try again later');
    end if;
    if v_limits ? 'project' then
      perform private.count_mails('project', p_mails, (v_limits ->> 'project')::integer,
        'Too many e-mails requested this hour: try again later');
    end if;
  exception when sqlstate 'PT429' then
    return sqlerrm;
  end;
  delete from private.code_mails m
  where m.ctid = any (array(select o.ctid from private.code_mails o where o.sent_at < now() - interval '60 seconds' limit 500));
  delete from private.recipient_mails m
  where m.ctid = any (array(select o.ctid from private.recipient_mails o where o.sent_at < now() - interval '60 seconds' limit 500));
  delete from private.mail_counts c
  where c.ctid = any (array(select o.ctid from private.mail_counts o where o.window_start < date_trunc('hour', now()) limit 500));
  return null;
end;
$$;
revoke execute on function private.take_mail_slot(uuid, text, text, integer, text) from public;
grant execute on function private.take_mail_slot(uuid, text, text, integer, text) to service_role;
comment on function private.take_mail_slot(uuid, text, text, integer, text) is
  'Takes a slot for p_mails code e-mails of p_kind to an account, asked for from p_address: null, or why not (once a minute per account and kind and per new address, per-address, sign-up and project budgets per hour).';

create function private.give_back_mail_slot(p_user_id uuid, p_kind text, p_address text, p_mails integer, p_new_email text default '')
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from private.code_mails m where m.user_id = p_user_id and m.kind = p_kind;
  delete from private.recipient_mails r where p_kind = 'email_change' and r.recipient = lower(p_new_email);
  update private.mail_counts c set mails = greatest(0, c.mails - p_mails)
  where c.window_start = date_trunc('hour', now())
    and (c.key in (private.mail_address_key(p_address), 'project')
         or (c.key = 'project:signups' and p_kind in ('signup', 'invite')));
$$;
revoke execute on function private.give_back_mail_slot(uuid, text, text, integer, text) from public;
grant execute on function private.give_back_mail_slot(uuid, text, text, integer, text) to service_role;
comment on function private.give_back_mail_slot(uuid, text, text, integer, text) is
  'Gives back a slot of private.take_mail_slot whose e-mails could not be sent.';
