/* Struct-typed global and clause-local variables (see struct_vars.t). */
struct point { int x; int y; };
translator struct point < int n > { x = n; y = n * 2; };
struct point g;
BEGIN {
    g = xlate<struct point>(21);
    this->p = xlate<struct point>(5);
    mm = *curthread->mm;
    printf("%d %d %d %d %d\n", g.x, g.y, this->p.x, this->p.y, mm.arg_start == curthread->mm->arg_start);
    print(g);
    cp = *curpsinfo;
    printf("%s %d\n", cp.pr_fname, cp.pr_pid == pid);
    exit(0);
}
