# Sends SIGUSR2 twice to a child that catches it, SIGHUP once to one that
# ignores it, and kills a sleeping child with SIGTERM.
sh -c 'trap "" HUP; kill -HUP $$'
sh -c 'trap ":" USR2; kill -USR2 $$; kill -USR2 $$'
sleep 30 &
sleep 0.2
kill -TERM $!
wait
