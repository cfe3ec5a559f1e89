# -c splits its command as a shell splits words (our extension; dtrace(1)
# splits on blanks only): quotes keep blanks inside one argument and are
# removed, a backslash escapes a blank, and nothing is expanded.
args: -q -n 'BEGIN { }' -c "/bin/echo 'a  b' \"c  d\" e\\ \\ f \$HOME"
status: 0
stdout:
a  b c  d e  f $HOME

