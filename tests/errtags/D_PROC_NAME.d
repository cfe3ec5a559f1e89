/* The - function takes single addresses, not globs. */
pid$target::-:1*
{
}
