# An unknown macro variable is an error...
args: -xerrtags -n 'BEGIN { trace($nosuch); }'
status: 1
stdout:
stderr:
dtrace: invalid probe specifier BEGIN { trace($nosuch); }: [D_MACRO_UNDEF] macro variable $nosuch is not defined
