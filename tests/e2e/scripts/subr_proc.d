#pragma D option quiet

BEGIN {
  printf("%d %d %d %d\n", progenyof($pid), progenyof($ppid), progenyof(1), progenyof(-5));
  printf("%x %x\n", getmajor(0x0ab12345), getminor(0x0ab12345));
  r1 = rand(); r2 = rand(); r3 = rand();
  printf("%d\n", r1 != r2 || r2 != r3);
  exit(0);
}
