struct outer {
	int n;
	struct never_defined inner;
};
