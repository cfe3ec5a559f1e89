# A forward-declared struct is incomplete until defined: it cannot be a member.
args: -s "$S/forward_struct.d"
status: 1
stdout:
stderr-re:
dtrace: failed to compile script .*/forward_struct\.d: line 3: incomplete struct/union/enum struct s: a
