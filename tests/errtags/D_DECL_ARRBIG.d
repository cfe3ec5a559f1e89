/* An array dimension beyond an unsigned int. */
int x[9223372036854775807];
