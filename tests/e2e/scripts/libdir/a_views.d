/* Loaded after b_base.d (it depends on it), though it sorts first. */
#pragma D depends_on library b_base.d

inline int VIEW_SCALE = BASE_SCALE * 10;

struct view {
	int pid;
	int scaled;
};

translator struct view < struct task_struct *t > {
	pid = t->tgid;
	scaled = t->tgid * VIEW_SCALE;
};

inline struct view *curview = xlate<struct view *>(curthread);
