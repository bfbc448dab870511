#!/bin/bash
# What queueing a press's deliveries costs Postgres (issue 44, decision 080): 50 pgbench sessions each running one
# variant of the insert the press's statement makes (three webhooks, one status.pressed event of ~760 bytes), and the
# CPU of their backends per transaction. Setup once: createdb h44_micro; psql -d h44_micro -f setup.sql. Then, from
# this folder: flock /tmp/heavy.lock ./run.sh v_d_cur.sql 10 (and v_w0.sql, a one-row write, as the floor).
# The variants: v_d_cur (the table as it was, foreign key and five indexes), v_d_nofk (no foreign key), v_d_fewidx
# (no foreign key, only the pending-order and message indexes), v_narrow (the payload once in an events row, three
# narrow deliveries), v_evonly (one event row, no delivery: the fan-out off the press's path), v_nofk_nc (no foreign
# key, no ON CONFLICT: the press since migration 0045), v_w0 (a one-row write: the floor).
s=$1; secs=${2:-10}
db=${DB:-h44_micro}
pgbench -h 127.0.0.1 -U postgres -n -c 50 -j 2 -T "$secs" -f "$s" "$db" > "/tmp/webhook-enqueue.$$" 2>&1 &
bp=$!
sleep 1.5
pids=$(psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select pid from pg_stat_activity where datname='$db' and application_name='pgbench'")
cpu() { for p in $pids; do awk '{print $14+$15}' "/proc/$p/stat"; done | paste -sd+ | bc; }
xc() { psql -h 127.0.0.1 -U postgres -d "$db" -Atc "select sum(xact_commit) from pg_stat_database where datname='$db'"; }
c0=$(cpu); x0=$(xc)
sleep 6
c1=$(cpu); x1=$(xc)
wait $bp
tps=$(grep "^tps" "/tmp/webhook-enqueue.$$" | head -1 | awk '{print $3}')
echo "$s tps=$tps cpu_ms_per_tx=$(echo "scale=4; ($c1-$c0)*10/($x1-$x0-2)" | bc) (ticks $((c1-c0)), tx $((x1-x0)))"
