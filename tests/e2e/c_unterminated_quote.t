# An unterminated quote in the -c command is an error; nothing is run.
args: -q -n 'BEGIN { }' -c "/bin/echo 'abc"
status: 1
stderr:
dtrace: invalid command '/bin/echo 'abc': unterminated single quote
