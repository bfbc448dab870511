-- bench/tools/webhook-enqueue (issue 44): the tables each variant inserts into. psql -d h44_micro -f setup.sql
drop table if exists d_cur, d_nofk, d_fewidx, ev, d_narrow, ev_only, w0t, payload_src, webhooks cascade;
create table webhooks (id serial primary key, url text not null, events text[] not null, secret text not null default 's', enabled boolean not null default true, failing_since timestamptz, disabled_reason text, from_env boolean not null default false, created_at timestamptz not null default now(), updated_at timestamptz not null default now());
insert into webhooks (url, events) select 'http://x', array['status.pressed','client.final_status','report.sent'] from generate_series(1,3);
-- current
create table d_cur (id bigserial primary key, webhook_id int not null references webhooks(id) on delete cascade, message_id text not null, event_type text not null, payload jsonb not null, order_key bigint, state text not null default 'pending', attempts int not null default 0, next_attempt_at timestamptz not null default now(), locked_until timestamptz, created_at timestamptz not null default now(), delivered_at timestamptz, accepted_status int, accepted_response text, accepted_duration_ms int) with (fillfactor=70);
create index on d_cur (webhook_id) where state='failed';
create index on d_cur (webhook_id, id);
create index on d_cur (id) where state='pending';
create index on d_cur (webhook_id, order_key, id) where state='pending';
create unique index on d_cur (webhook_id, message_id);
-- no fk
create table d_nofk (like d_cur including all) with (fillfactor=70);
-- fewer indexes, no fk
create table d_fewidx (id bigserial primary key, webhook_id int not null, message_id text not null, event_type text not null, payload jsonb not null, order_key bigint, state text not null default 'pending', attempts int not null default 0, next_attempt_at timestamptz not null default now(), locked_until timestamptz, created_at timestamptz not null default now(), delivered_at timestamptz, accepted_status int, accepted_response text, accepted_duration_ms int) with (fillfactor=70);
create index on d_fewidx (webhook_id, order_key, id) where state='pending';
create unique index on d_fewidx (webhook_id, message_id);
-- events + narrow
create table ev (id bigserial primary key, message_id text not null, event_type text not null, payload jsonb not null, order_key bigint, created_at timestamptz not null default now());
create table d_narrow (id bigserial primary key, webhook_id int not null, event_id bigint not null, order_key bigint, state text not null default 'pending', attempts int not null default 0, next_attempt_at timestamptz not null default now(), locked_until timestamptz, created_at timestamptz not null default now(), delivered_at timestamptz, accepted_status int, accepted_response text, accepted_duration_ms int) with (fillfactor=70);
create index on d_narrow (webhook_id) where state='failed';
create index on d_narrow (webhook_id, id);
create index on d_narrow (id) where state='pending';
create index on d_narrow (webhook_id, order_key, id) where state='pending';
create unique index on d_narrow (webhook_id, event_id);
create table ev_only (like ev including all);
create table payload_src as select jsonb_build_object('eventId', 123456, 'pressedAt', now(), 'user', jsonb_build_object('id', 17, 'login', 'manager017'), 'filterId', 3, 'status', jsonb_build_object('id', 5, 'text', 'Недозвон', 'isReport', false, 'isDoNotCall', false), 'client', jsonb_build_object('id', 123456, 'baseId', 4, 'name', 'Иванов Иван Иванович', 'phone', '+380501234567', 'city', 'Киев', 'address', 'ул. Крещатик, д. 1, кв. 2', 'additionalInfo1', 'что-то важное про клиента', 'additionalInfo2', 'ещё', 'additionalInfo3', '', 'additionalInfo4', ''), 'clientInfo', 'заметка менеджера о разговоре', 'withPassport', false, 'attempt', 2, 'callbackAt', null) as p;
create table w0t (id bigserial primary key, x int);
