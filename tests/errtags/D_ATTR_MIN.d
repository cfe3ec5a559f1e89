#pragma D option amin=Evolving/Evolving/Common
BEGIN
{
	exit(0);
}
/* A description naming no provider is rated Unstable/Unstable/Common (it could match any provider): below the minimum, reported at the end of its clause. */
