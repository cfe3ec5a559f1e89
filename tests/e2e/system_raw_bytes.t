# A D string is bytes: system()'s command gets "\xc0\xa8" as the two bytes, not as UTF-8 replacement characters.
args: -qwn 'BEGIN { system("printf \"\xc0\xa8\x01\" | od -An -tx1"); exit(0); }'
status: 0
stdout:
 c0 a8 01

