typedef int foo_t;
typedef char foo_t;
