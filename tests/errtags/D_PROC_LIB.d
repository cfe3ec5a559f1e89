/* Only a.out may be named with the - function. */
pid$target:libc.so.6:-:10
{
}
