/* An offset inside an instruction (getppid starts with a five-byte mov). */
pid$target:libc.so.6:getppid:1
{
}
