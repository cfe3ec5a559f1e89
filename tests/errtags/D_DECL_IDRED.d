int x;
char x;
