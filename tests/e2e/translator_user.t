# A user-declared translator: xlate<T>(e).m and xlate<T *>(p)->m evaluate only that member's definition; a whole translation is built for print().
sh: $DTRACE -qs $S/translator.d
status: 0
stdout:
7 14 1 1 seven
struct pair {
    a = 0x3
    b = 0x6
    name = "seven"
    kind = PAIR_DOUBLE
}

