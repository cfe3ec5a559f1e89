# -x amin: a description naming its provider is rated by the provider's
# attributes (dtrace:::BEGIN is Stable/Stable/Common), so it meets an Evolving
# minimum; one naming no provider could match any and is rated Unstable.
args: -x amin=Evolving/Evolving/Common -qn 'dtrace:::BEGIN { printf("ok\n"); exit(0); }'
status: 0
stdout:
ok

