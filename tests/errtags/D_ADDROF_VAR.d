BEGIN
{
	self->a = 1;
	x = &self->a;
}
