this int a[int];
/* Message and tag as libdtrace's dt_decl_var() raises them for a `this` associative array. */
