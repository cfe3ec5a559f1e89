enum e {
	A = "x"
};
/* Message and tag as libdtrace's dt_decl_enumerator() raises them. */
