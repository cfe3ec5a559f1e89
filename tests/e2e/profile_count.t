# profile-N fires on every CPU.
args: -qn 'profile-1000hz { @ = count(); } tick-300ms { exit(0); }'
status: 0
stdout-re:


 +[1-9][0-9]*
