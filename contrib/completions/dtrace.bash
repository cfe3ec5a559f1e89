# bash completion for dtrace(1). Install as
# /usr/share/bash-completion/completions/dtrace (see README).
# A test (crates/dtrace-cli/src/docs_check.rs) checks that the flags and the
# -x option names below are exactly those dtrace accepts.

_dtrace_options="aggfmt aggpack aggpercpu aggrate aggsize aggsortkey aggsortkeypos aggsortpos
aggsortrev aggzoom amin argref bpflog bpflogsize bufpolicy bufresize bufsize cleanrate
core cpp cppargs cpphdrs cpppath cpu ctfpath ctypes debug debugassert defaultargs define
destructive disasm droptags dtypes dynvarsize empty errtags evaltime flamegraph flowindent followfork grabanon
incdir iregs jstackframes jstackstrsize kdefs knodefs late lazyload ldpath libdir libxo
linkmode linknommap linktype lockmem maxframes metriclabels modpath noresolve nolibs nspec oformat otlp pcapsize pgmax preallocate
printsize procfspath prometheus pspec quiet quietresize rawbytes scratchsize specsize stackframes stackindent
statusrate stdc strip strsize switchrate syslibdir sysslice tree tregs udefs undef
unodefs useruid ustackbytes ustackframes verbose version zdefs"

_dtrace_flags="-32 -64 -a -A -b -c -C -D -e -f -F -G -h -H -i -I -l -L -m -n -o -O -p -P
-q -s -S -U -v -V -w -x -X -Z --prometheus --otlp --libxo --flamegraph"

_dtrace() {
    local cur prev
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
        -s|-o)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        -I|-L)
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        -O)
            COMPREPLY=($(compgen -W "json ndjson" -- "$cur"))
            return ;;
        -c)
            COMPREPLY=($(compgen -c -- "$cur"))
            return ;;
        -p)
            COMPREPLY=($(compgen -W "$(ls /proc | grep '^[0-9]')" -- "$cur"))
            return ;;
        -x)
            COMPREPLY=($(compgen -W "$_dtrace_options" -- "$cur"))
            return ;;
        -X)
            COMPREPLY=($(compgen -W "a c s t" -- "$cur"))
            return ;;
        -P)
            COMPREPLY=($(compgen -W "dtrace profile syscall sdt" -- "$cur"))
            return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$_dtrace_flags" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _dtrace dtrace
