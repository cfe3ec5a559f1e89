/* A process that does not exist. */
pid2147483647:::entry
{
}
