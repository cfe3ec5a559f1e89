# Provider declarations are accepted (kept for header generation).
args: -qs "$S/provider_decl.d"
status: 0
stdout:
ok

