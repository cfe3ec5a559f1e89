/* A function the named module does not define. */
pid$target:libc.so.6:no_such_function:entry
{
}
