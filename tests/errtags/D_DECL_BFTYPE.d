struct s {
	char *p : 3;
};
/* Message and tag as libdtrace's dt_decl_member() raises them. */
