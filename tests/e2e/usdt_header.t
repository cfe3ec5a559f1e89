# dtrace -h writes a C header whose probe macros compile to stapsdt probes:
# a .note.stapsdt note per site with the provider, the probe name as written
# and one argument location per argument, and a semaphore per probe;
# dtrace -G writes an object defining the semaphores, to link in.
sh: d=$(mktemp -d) && cd "$d" && printf 'provider myapp {\n\tprobe start(int, char *);\n\tprobe d__one();\n};\n' > prov.d && printf '#include "prov.h"\nint main(int argc, char **argv)\n{\n\tMYAPP_START(argc, argv[0]);\n\tif (MYAPP_D_ONE_ENABLED())\n\t\treturn 1;\n\tMYAPP_D_ONE();\n\treturn 0;\n}\n' > app.c && "$DTRACE" -h -s prov.d && cc -O2 -Wall -c app.c && "$DTRACE" -G -s prov.d app.o && cc -o app app.o prov.o && ./app && readelf -n app | grep -E 'Provider|Name|Arguments' | sed -E 's/@[^ ]+/@ARG/g; s/^ +//; s/ +$//' && nm app | grep -c _semaphore; cd /; rm -rf "$d"
status: 0
stdout:
Provider: myapp
Name: start
Arguments: -8@ARG -8@ARG
Provider: myapp
Name: d__one
Arguments:
2
