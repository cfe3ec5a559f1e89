# After exit(), no new actions occur: later clauses of the same firing do nothing;
# END still runs (Dynamic Tracing Guide, exit action).
args: -qn 'BEGIN { exit(0); } BEGIN { printf("second\n"); } END { printf("end\n"); }'
status: 0
stdout:
end

