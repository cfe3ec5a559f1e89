struct s {
	int ok : 3;
	int a : 40;
};
