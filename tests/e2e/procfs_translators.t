# procfs.d: curpsinfo/curlwpsinfo (translators from struct task_struct) agree with the built-in variables; pr_psargs is the traced command's argv joined by spaces (argv[0] as given to execve).
args: -qn 'syscall::getppid:entry /pid == $target/ { printf("%d %d %d %d %d %d %d %c|%s|%s|\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid, curlwpsinfo->pr_lwpid == tid, curpsinfo->pr_fname == execname, curlwpsinfo->pr_name == execname, curpsinfo->pr_uid == uid, curpsinfo->pr_argc == 2, curlwpsinfo->pr_sname, curpsinfo->pr_fname, curpsinfo->pr_psargs); exit(0); }' -c "$T/getppid_loop 5"
status: 0
stdout-re:
1 1 1 1 1 1 1 O\|getppid_loop\|/.*/getppid_loop 5\|

