# Runs three known commands, one of them twice, and one exec that fails.
/bin/true first run
/bin/echo hello world > /dev/null
/bin/true second run
/nonexistent/command 2> /dev/null
exit 0
