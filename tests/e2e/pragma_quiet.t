# #pragma D option quiet in a script.
args: -s "$S/quiet.d"
status: 0
stdout:
quiet

