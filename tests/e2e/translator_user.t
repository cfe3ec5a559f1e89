# A user-declared translator: xlate<T>(e).m and xlate<T *>(p)->m evaluate only that member's definition; a whole translation is built for print() (DTrace 2.x's layout).
sh: $DTRACE -qs $S/translator.d
status: 0
stdout:
7 14 1 1 seven
                                            (struct pair) {
                                             .a = (int)3,
                                             .b = (long)6,
                                             .name = (char [8]) [
                                              (char)'s',
                                              (char)'e',
                                              (char)'v',
                                              (char)'e',
                                              (char)'n',
                                             ],
                                             .kind = (enum pair_kind)PAIR_DOUBLE,
                                            }

