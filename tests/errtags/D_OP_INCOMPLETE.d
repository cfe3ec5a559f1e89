struct opaque;
struct opaque *op;

BEGIN
{
	trace(op->field);
}
