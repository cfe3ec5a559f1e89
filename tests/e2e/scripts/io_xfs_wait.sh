# Runs dtrace ($DTRACE, with the program in $1) while an XFS file system made
# here on a loop device is mounted, written, relabelled and unmounted: the
# mount reads the superblock and metadata, setting the label writes every
# superblock, and XFS waits for each of those buffers. DEVNAME in $1 is the
# loop device's name. Needs mkfs.xfs and xfs_io (xfsprogs) and a kernel with
# XFS. The device, mount point and files are removed on every way out.
set -u
if ! command -v mkfs.xfs >/dev/null 2>&1 || ! command -v xfs_io >/dev/null 2>&1; then
	echo "io_xfs_wait.sh: needs xfsprogs (mkfs.xfs, xfs_io)" >&2
	exit 1
fi
img=$(mktemp /tmp/dtrace-e2e-xfs.XXXXXX) || exit 1
mnt=$(mktemp -d /tmp/dtrace-e2e-xfsmnt.XXXXXX) || exit 1
DEV=
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$DEV" ] && losetup -d "$DEV"
	rmdir "$mnt"
	rm -f "$img" "$img.sh"
}
trap cleanup EXIT
trap "exit 1" HUP INT TERM
truncate -s 320M "$img" || exit 1
mkfs.xfs -q "$img" || exit 1
DEV=$(losetup -f --show "$img") || exit 1
name=${DEV#/dev/}
cat > "$img.sh" <<WORK || exit 1
mount -t xfs $DEV $mnt && dd if=/dev/zero of=$mnt/f bs=4096 count=16 status=none &&
    xfs_io -c "label -s dtrace" $mnt >/dev/null && umount $mnt
WORK
"$DTRACE" -qn "${1//DEVNAME/$name}" -c "sh $img.sh"
