# Build, in the current directory, late_main and liblate.so (late_lib.c with
# its provider `late`, through dtrace -h and -G).
S=$(dirname "${BASH_SOURCE[0]}")
printf 'provider late {\n\tprobe fire(int, long);\n};\n' > late.d &&
"$DTRACE" -h -s late.d -o late.h &&
cc -O0 -fPIC -I. -c "$S/late_lib.c" -o late_lib.o &&
"$DTRACE" -G -s late.d late_lib.o -o late_prov.o &&
cc -shared -o liblate.so late_lib.o late_prov.o &&
cc -o late_main "$S/late_main.c" -ldl
