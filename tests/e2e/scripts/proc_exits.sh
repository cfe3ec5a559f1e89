# Three children: one exits with a status, one is killed, one exits 0.
sh -c 'exit 3'
sleep 30 &
sleep 0.3
kill -KILL $!
wait
/bin/true
