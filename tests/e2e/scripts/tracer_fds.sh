# Run as a -c command: prints how many of its parent's (dtrace's) file
# descriptors are perf events and how many are BPF links, one line each.
# A tracepoint program is attached through perf events; a raw tracepoint
# through a BPF link.
perf=0
link=0
for fd in /proc/$PPID/fd/*; do
	case $(readlink "$fd") in
	*perf_event*) perf=$((perf + 1)) ;;
	*bpf_link*) link=$((link + 1)) ;;
	esac
done
echo "perf events: $([ $perf -gt 0 ] && echo some || echo none)"
echo "bpf links: $link"
