struct pair { int a; };
translator struct pair < int x > { a = x; };
BEGIN
{
	xlate<struct pair *>(1);
}
/* A translated pointer has D's dynamic type: an expression cannot have it as its value. */
