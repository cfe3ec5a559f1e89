#pragma D depends_on library absent.d

inline int C_VALUE = 3;
