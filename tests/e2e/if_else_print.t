# Actions skipped under if/else print nothing; the taken branch prints.
args: -qn 'BEGIN { x = 3; if (x > 2) { printf("big\n"); } else { printf("small\n"); } if (x < 2) printf("never\n"); else { trace(7); printf("\n"); } if (x == 0) exit(1); printf("done\n"); exit(0); }'
status: 0
stdout:
big
7
done

