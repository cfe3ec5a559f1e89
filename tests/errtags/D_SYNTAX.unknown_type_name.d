BEGIN
{
	trace(offsetof(no_such_t	, member));
}
/* The lexer peeks past an unknown name: the message quotes the rest of the line, the blanks after the name as spaces. */
