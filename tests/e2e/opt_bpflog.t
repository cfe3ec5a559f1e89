# -x bpflog prints the verifier's log of each program loaded, each line
# prefixed "BPF: ".
args: -x bpflog -qn 'BEGIN { exit(0); }'
status: 0
stdout:

stderr-re:
BPF: processed [0-9]+ insns.*
