nosuch:::probe
{
}
