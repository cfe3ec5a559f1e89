#pragma D option specsize=64 k

BEGIN
{
}
