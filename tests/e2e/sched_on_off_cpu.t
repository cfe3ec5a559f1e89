# sched:::on-cpu fires in the thread coming on the CPU and off-cpu in the one
# leaving it, with args[] naming the next thread; sleep fires as a thread
# blocks. Each of the target's five children sleeps once: each goes off the
# CPU to sleep and comes back on it at least once; the target (pid ==
# $target) waits for them off the CPU and runs again.
args: -qn 'sched:::on-cpu /ppid == $target && execname == "sleep"/ { on[pid] = 1; } sched:::off-cpu /args[1]->pr_ppid == $target && args[1]->pr_fname == "sleep"/ { next[args[1]->pr_pid] = 1; } sched:::sleep /ppid == $target && execname == "sleep"/ { sleeps[pid] = 1; } proc:::exit /ppid == $target/ { n += on[pid] + next[pid] + sleeps[pid]; } sched:::on-cpu /pid == $target/ { ton = 1; } sched:::off-cpu /pid == $target/ { toff = 1; } END { printf("%d %d %d\n", n, ton, toff); }' -c "sh $S/sched_sleeps.sh"
status: 0
stdout:
15 1 1

