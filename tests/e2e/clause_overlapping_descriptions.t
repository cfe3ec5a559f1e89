# A probe that two descriptions of one clause match runs the clause once per
# description: DTrace enables each description of a clause on its own (one
# enabling each), so getppid's entry probe counts every call twice here.
args: -qn 'syscall::getppid:entry, syscall::getpp*:entry /pid == $target/ { @ = count(); }' -c "$T/getppid_loop 3"
status: 0
stdout:

                6
