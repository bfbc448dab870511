\set id random(1, 100000000)
insert into d_fewidx (webhook_id, message_id, event_type, payload, order_key)
select w.id, 'msg_status_pressed_' || :id, 'status.pressed', jsonb_build_object('type', 'status.pressed', 'timestamp', now(), 'data', s.p), :id % 20000
from webhooks w, payload_src s where w.enabled and 'status.pressed' = any(w.events) order by w.id
on conflict (webhook_id, message_id) do nothing;
