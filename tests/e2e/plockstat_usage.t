# plockstat with no command or pid: the usage text, status 2.
sh: "$PLOCKSTAT" -A
status: 2
stdout:
stderr:
Usage:
	plockstat [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]
	    command [arg...]
	plockstat [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]
	    -p pid
