# -X s (-x stdc=s) preprocesses as K&R C, where __STDC__ is not defined; the
# default mode defines it.
sh: printf 'BEGIN {\n#ifdef __STDC__\nprintf("stdc\\n");\n#else\nprintf("k&r\\n");\n#endif\nexit(0); }\n' > "$T/stdc.d"; $DTRACE -C -qs "$T/stdc.d"; $DTRACE -C -x stdc=s -qs "$T/stdc.d"
status: 0
stdout:
stdc

k&r

