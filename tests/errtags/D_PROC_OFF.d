/* An offset past the end of the function. */
pid$target:libc.so.6:getppid:fffff
{
}
