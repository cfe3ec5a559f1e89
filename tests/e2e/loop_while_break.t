# while (1) ends at its break.
args: -qn 'BEGIN { this->n = 0; while (1) { this->n++; if (this->n == 7) break; } printf("%d\n", this->n); exit(0); }'
status: 0
stdout:
7

