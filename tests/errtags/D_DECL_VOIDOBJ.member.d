struct t {
	void a;
};
