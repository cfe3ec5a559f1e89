struct s {
	int ok : 3;
	int a : 40;
};
/* Message and tag as libdtrace's dt_decl_member() raises them. */
