-- The facade's factor recovery mails its notices too: a removal of the second factor started or cancelled.
alter table private.account_changes drop constraint account_changes_kind_check;
alter table private.account_changes add constraint account_changes_kind_check check (kind in (
  'password_changed', 'email_changed', 'mfa_factor_enrolled', 'mfa_factor_unenrolled',
  'factor_recovery_started', 'factor_recovery_cancelled'));
comment on column private.account_changes.kind is 'What changed, as Auth names its notification e-mail (the facade''s factor recovery: factor_recovery_started, factor_recovery_cancelled).';
