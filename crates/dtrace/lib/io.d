/*
 * io.d: the io provider's argument types (the Dynamic Tracing Guide's "io
 * Provider": bufinfo_t, devinfo_t, fileinfo_t) and their translators from
 * the kernel's block layer, struct request (the request the io probes'
 * tracepoints pass) and struct file.
 *
 * Linux meanings:
 *   bufinfo_t   b_flags is B_READ or B_WRITE (the request's operation) with
 *               B_PHYS (the block layer does not tell page I/O apart);
 *               b_bcount and b_bufsize the bytes left to transfer (the whole
 *               request at io:::start); b_blkno and b_lblkno the starting
 *               512-byte sector; b_addr, b_resid and b_error 0; b_iodone the
 *               request's completion function; b_edev the device number
 *               (major << 20 | minor, as getmajor()/getminor() read it).
 *   devinfo_t   dev_major/dev_minor of that device; dev_instance 0; dev_name
 *               and dev_statname the disk's name (e.g. "loop0"); dev_pathname
 *               "<unknown>".
 *   fileinfo_t  from a struct file: fi_pathname its d_path(), fi_name and
 *               fi_dirname that path's basename and dirname, fi_offset the
 *               file position, fi_fs the file system type, fi_mount where
 *               its file system is mounted, fi_oflags the open flags. The
 *               block layer does not know the file: from a null pointer,
 *               every name is "<none>", fi_offset -1 and fi_oflags 0.
 */

inline int B_BUSY = 0x000001;
inline int B_DONE = 0x000002;
inline int B_ERROR = 0x000004;
inline int B_PAGEIO = 0x000010;
inline int B_PHYS = 0x000020;
inline int B_READ = 0x000040;
inline int B_WRITE = 0x000100;
inline int B_ASYNC = 0x000400;

typedef struct bufinfo {
	int b_flags;
	size_t b_bcount;
	uintptr_t b_addr;
	uint64_t b_blkno;
	uint64_t b_lblkno;
	size_t b_resid;
	size_t b_bufsize;
	uintptr_t b_iodone;
	int b_error;
	uint64_t b_edev;
} bufinfo_t;

typedef struct devinfo {
	int dev_major;
	int dev_minor;
	int dev_instance;
	string dev_name;
	string dev_statname;
	string dev_pathname;
} devinfo_t;

typedef struct fileinfo {
	string fi_name;
	string fi_dirname;
	string fi_pathname;
	long long fi_offset;
	string fi_fs;
	string fi_mount;
	int fi_oflags;
} fileinfo_t;

translator bufinfo_t < struct request *R > {
	b_flags = ((R->cmd_flags & 1) != 0 ? B_WRITE : B_READ) | B_PHYS;
	b_bcount = R->__data_len;
	b_addr = 0;
	b_blkno = R->__sector;
	b_lblkno = R->__sector;
	b_resid = 0;
	b_bufsize = R->__data_len;
	b_iodone = (uintptr_t)R->end_io;
	b_error = 0;
	b_edev = R->bio != NULL ? R->bio->bi_bdev->bd_dev :
	    R->q->disk->major << 20 | R->q->disk->first_minor;
};

translator devinfo_t < struct request *R > {
	dev_major = (R->bio != NULL ? R->bio->bi_bdev->bd_dev :
	    R->q->disk->major << 20) >> 20;
	dev_minor = (R->bio != NULL ? R->bio->bi_bdev->bd_dev :
	    R->q->disk->first_minor) & 0xfffff;
	dev_instance = 0;
	dev_name = stringof(R->q->disk->disk_name);
	dev_statname = stringof(R->q->disk->disk_name);
	dev_pathname = "<unknown>";
};

translator fileinfo_t < struct file *F > {
	fi_name = F == NULL ? "<none>" : basename(d_path(&F->f_path));
	fi_dirname = F == NULL ? "<none>" : dirname(d_path(&F->f_path));
	fi_pathname = F == NULL ? "<none>" : d_path(&F->f_path);
	fi_offset = F == NULL ? -1 : F->f_pos;
	fi_fs = F == NULL ? "<none>" :
	    stringof(F->f_path.mnt->mnt_sb->s_type->name);
	fi_mount = F == NULL ? "<none>" :
	    __dt_d_path(F->f_path.mnt, F->f_path.mnt->mnt_root);
	fi_oflags = F == NULL ? 0 : F->f_flags;
};

/*
 * fds[fd]: the current process's open file fd, as a fileinfo_t; a negative,
 * too large or closed fd gives the fileinfo_t of no file, as does any fd of
 * a task without a file table (a kernel thread).
 */
inline fileinfo_t fds[int fd] = xlate <fileinfo_t> (
	fd >= 0 && curthread->files != NULL &&
	fd < curthread->files->fdt->max_fds ?
	curthread->files->fdt->fd[fd] : NULL);
