# Runs dtrace ($DTRACE, with the program in $1) over 64 O_DIRECT writes of
# 4096 bytes to a loop device made here on a file in /tmp; the device and
# the file are removed on every way out. DEVNAME in $1 is the device's name.
set -u
img=$(mktemp /tmp/dtrace-e2e-io.XXXXXX) || exit 1
DEV=
cleanup() {
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -f "$img"
}
trap cleanup EXIT
trap "exit 1" HUP INT TERM
truncate -s 4M "$img" || exit 1
DEV=$(losetup -f --show "$img") || exit 1
name=${DEV#/dev/}
"$DTRACE" -qn "${1//DEVNAME/$name}" \
    -c "dd if=/dev/zero of=$DEV bs=4096 count=64 oflag=direct status=none"
