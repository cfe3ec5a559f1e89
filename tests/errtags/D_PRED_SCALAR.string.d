BEGIN
/"x"/
{
}
/* "The predicate expression must evaluate to a value of integer or pointer type" (Dynamic Tracing Guide, "Predicates"). */
