# dtrace -G takes its data model from -32/-64 or else from the first object:
# a 32-bit program gets a 32-bit object defining its semaphores (and its
# header's notes hold 4-byte addresses and arguments); an object of the
# other class is an error naming it.
sh: d=$(mktemp -d) && cd "$d" && printf 'provider cls {\n\tprobe go(int);\n};\n' > prov.d && "$DTRACE" -h -s prov.d && printf '#include "prov.h"\nint main(int argc, char **argv)\n{\n\tif (CLS_GO_ENABLED())\n\t\treturn 1;\n\tCLS_GO(argc);\n\treturn 0;\n}\n' > t.c && cc -m32 -c -o t32.o t.c && cc -c -o t64.o t.c && "$DTRACE" -G -s prov.d t32.o && cc -m32 -o t32 t32.o prov.o && ./t32 && readelf -h prov.o | grep -E 'Class|Machine' | sed -E 's/ +/ /g' && readelf -n t32 | grep Arguments | sed -E 's/@.*//; s/^ +//'; "$DTRACE" -G -s prov.d t32.o t64.o; echo "status $?"; "$DTRACE" -64 -G -s prov.d t32.o; echo "status $?"; cd /; rm -rf "$d"
status: 0
stdout:
 Class: ELF32
 Machine: Intel 80386
Arguments: -4
status 1
status 1
stderr:
dtrace: failed to link script prov.d: incorrect ELF class for object file: t64.o
dtrace: failed to link script prov.d: incorrect ELF class for object file: t32.o
