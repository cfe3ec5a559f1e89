# fbt lists every traceable kernel function's entry and return probes, module
# vmlinux for the kernel itself.
args: -l -n fbt::vfs_read:
status: 0
stdout-re:
   ID   PROVIDER            MODULE                          FUNCTION NAME
 *\d+ +fbt +vmlinux +vfs_read entry
 *\d+ +fbt +vmlinux +vfs_read return
