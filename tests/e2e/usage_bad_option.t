# An unknown option prints the usage and exits 2.
args: -k
status: 2
stdout:
stderr-has:
dtrace: invalid option -- 'k'
Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]
