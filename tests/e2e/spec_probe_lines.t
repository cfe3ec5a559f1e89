# Without -q, a committed record prints its probe line when committed, and a
# clause that only commits prints none.
args: -n 'BEGIN { s = speculation(); } BEGIN { speculate(s); trace(s); } BEGIN { commit(s); } BEGIN { exit(0); }'
status: 0
stdout-re:
CPU +ID +FUNCTION:NAME
 *[0-9]+ +1 +:BEGIN +1
 *[0-9]+ +1 +:BEGIN 

stderr:
dtrace: description 'BEGIN ' matched 4 probes
