\set id random(1, 100000000)
insert into w0t (x) select :id from webhooks w where w.id = 1;
