# setopt() at run time: an unknown name and a bad value are reported, and
# tracing goes on; a valid option takes effect.
args: -qn 'BEGIN { setopt("nosuchopt"); setopt("quiet", "maybe"); setopt("bufsize", "1m"); printf("done\n"); exit(0); }'
status: 0
stdout:
done

stderr:
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "nosuchopt" to "1": Invalid option name

dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "quiet" to "maybe": Invalid value for specified option

dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "bufsize" to "1m": Operation illegal when tracing is active

