/*
 * io_xfs.d: the io provider's arguments for its wait probes, io:::wait-start
 * and io:::wait-done, which XFS's xfs_buf_iowait and xfs_buf_iowait_done
 * tracepoints serve: bufinfo_t and devinfo_t translated from the XFS buffer
 * (struct xfs_buf) a thread waits for. Loaded only where a program names the
 * io provider on a kernel that has XFS (the probes exist only there).
 *
 * Linux meanings:
 *   bufinfo_t   b_flags is B_WRITE or B_READ (the buffer's XBF_WRITE flag);
 *               b_bcount and b_bufsize the buffer's length in bytes (XFS
 *               counts 512-byte basic blocks); b_blkno and b_lblkno its first
 *               512-byte sector on the device; b_addr its memory; b_error
 *               XFS's error for it; b_iodone its completion function;
 *               b_edev the device number (major << 20 | minor).
 *   devinfo_t   dev_major/dev_minor of that device; dev_name and dev_statname
 *               the disk's name ("loop0"), or "<none>" for a buffer of no block
 *               device; dev_instance 0; dev_pathname "<unknown>".
 *
 * It names io.d's types, so io.d loads first. The typedef names the struct
 * the translators read, so that a program naming it (as the io provider's
 * wait probes do for their native argument) loads this library.
 */

typedef struct xfs_buf xfs_buf_t;

inline int XBF_READ = 0x1;
inline int XBF_WRITE = 0x2;

translator bufinfo_t < struct xfs_buf *B > {
	b_flags = (B->b_flags & XBF_WRITE) != 0 ? B_WRITE : B_READ;
	b_bcount = B->b_length * 512;
	b_addr = (uintptr_t)B->b_addr;
	b_blkno = B->b_maps->bm_bn;
	b_lblkno = B->b_maps->bm_bn;
	b_resid = 0;
	b_bufsize = B->b_length * 512;
	b_iodone = (uintptr_t)B->b_iodone;
	b_error = B->b_error;
	b_edev = B->b_target->bt_dev;
};

translator devinfo_t < struct xfs_buf *B > {
	dev_major = B->b_target->bt_dev >> 20;
	dev_minor = B->b_target->bt_dev & 0xfffff;
	dev_instance = 0;
	dev_name = B->b_target->bt_bdev == NULL ? "<none>" :
	    stringof(B->b_target->bt_bdev->bd_disk->disk_name);
	dev_statname = B->b_target->bt_bdev == NULL ? "<none>" :
	    stringof(B->b_target->bt_bdev->bd_disk->disk_name);
	dev_pathname = "<unknown>";
};
