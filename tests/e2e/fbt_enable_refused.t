# Where the kernel has neither fentry (BPF_PROG_TYPE_TRACING refused) nor
# kprobes, enabling an fbt probe fails in one line naming both, before
# anything is loaded or attached. (On a kernel with either, the probe attaches.)
sh: if [ -e /sys/bus/event_source/devices/kprobe ]; then echo "dtrace: could not enable tracing: fbt:vmlinux:vfs_read:entry: kernel function probes need fentry/fexit or kprobes: skipped"; exit 1; fi; $DTRACE -n 'fbt::vfs_read:entry { @ = count(); }'
status: 1
stdout:
stderr-re:
dtrace: could not enable tracing: fbt:vmlinux:vfs_read:entry: kernel function probes need fentry/fexit or kprobes: .*
