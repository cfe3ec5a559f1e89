/* A declaration that declares nothing. */
extern int;
