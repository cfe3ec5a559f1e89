enum e {
	A = 0x80000000
};
/* Message and tag as libdtrace's dt_decl_enumerator() raises them. */
