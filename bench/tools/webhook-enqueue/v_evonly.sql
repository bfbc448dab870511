\set id random(1, 100000000)
insert into ev_only (message_id, event_type, payload, order_key) select 'msg_status_pressed_' || :id, 'status.pressed', jsonb_build_object('type', 'status.pressed', 'timestamp', now(), 'data', s.p), :id % 20000 from payload_src s where exists (select 1 from webhooks w where w.enabled and 'status.pressed' = any(w.events));
