\set id random(1, 100000000)
with e as (insert into ev (message_id, event_type, payload, order_key) select 'msg_status_pressed_' || :id, 'status.pressed', jsonb_build_object('type', 'status.pressed', 'timestamp', now(), 'data', s.p), :id % 20000 from payload_src s returning id, order_key)
insert into d_narrow (webhook_id, event_id, order_key)
select w.id, e.id, e.order_key from e, webhooks w where w.enabled and 'status.pressed' = any(w.events) order by w.id
on conflict (webhook_id, event_id) do nothing;
