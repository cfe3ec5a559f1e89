#pragma D nosuchpragma

BEGIN
{
}
