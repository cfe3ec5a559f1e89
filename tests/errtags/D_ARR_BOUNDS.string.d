BEGIN
{
	x = curlwpsinfo->pr_name[16];
}
