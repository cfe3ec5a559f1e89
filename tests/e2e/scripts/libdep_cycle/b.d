#pragma D depends_on library a.d

inline int B_VALUE = 2;
