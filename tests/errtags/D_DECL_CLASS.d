/* A declaration names one storage class at most. */
self this int x;
