register int r;
