# A clause whose only action is exit() still prints the default probe line.
args: -n 'BEGIN { exit(0); }'
status: 0
stdout-re:
CPU     ID                    FUNCTION:NAME
 +[0-9]+      1                           :BEGIN 

stderr:
dtrace: description 'BEGIN ' matched 1 probe
