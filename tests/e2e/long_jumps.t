# A clause whose `if` skips more than 32767 instructions (past the 16-bit jump offset) loads, as the jump takes its 32-bit gotol form, which -S lists; both ways through the `if` give the right sums.
sh: d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && body=$(for i in $(seq 1 9000); do printf 'this->y += %d;\n' $i; done) && for x in 1 0; do printf 'BEGIN { x = %d; this->y = 7; if (x == 1) {\n%s\n} printf("x=%%d y=%%d\\n", x, this->y); exit(0); }\n' $x "$body" > "$d/p$x.d"; "$DTRACE" -qs "$d/p$x.d" || exit 1; done; "$DTRACE" -S -e -s "$d/p1.d" 2>&1 | awk '/gotol pc\+/ { n++ } END { if (n) print "gotol-listed" }'
status: 0
timeout: 60
stdout:
x=1 y=40504507

x=0 y=7

gotol-listed
