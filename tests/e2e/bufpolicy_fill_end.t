# bufpolicy=fill keeps room in every buffer for what END records; when END's
# records could not fit in a buffer at all, dtrace does not start.
args: -x bufpolicy=fill -b 4k -x strsize=4096 -qn 'BEGIN { exit(0); } END { trace(strjoin("a", "b")); }'
status: 1
stdout:
stderr:
dtrace: END enablings exceed size of principal buffer
