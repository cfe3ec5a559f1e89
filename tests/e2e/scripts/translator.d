enum pair_kind { PAIR_SINGLE = 1, PAIR_DOUBLE };
struct pair {
	int a;
	long b;
	char name[8];
	enum pair_kind kind;
};
struct thread_view {
	int id;
	int group;
};

translator struct pair < int n > {
	a = n;
	b = n * 2;
	name = "seven";
	kind = PAIR_DOUBLE;
};

translator struct thread_view < struct task_struct *t > {
	id = t->pid;
	group = t->tgid;
};

BEGIN
{
	printf("%d %d %d %d %s\n", xlate<struct pair>(7).a, xlate<struct pair>(7).b,
	    xlate<struct thread_view *>(curthread)->id == tid,
	    (*xlate<struct thread_view *>(curthread)).group == pid,
	    xlate<struct pair>(1).name);
	print(xlate<struct pair>(3));
	exit(0);
}
