/* Needs b.d, which needs this one. */
#pragma D depends_on library b.d

inline int A_VALUE = 1;
