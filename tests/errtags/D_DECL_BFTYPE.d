struct s {
	char *p : 3;
};
