# bash completion for heraldd (written by hand: heraldd parses its options itself)
_heraldd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --spool) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --notifier) COMPREPLY=($(compgen -W "libnotify console" -- "$cur")); return ;;
        --log-level) COMPREPLY=($(compgen -W "trace debug info notice warning error critical" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "--spool --config --notifier --log-level --probe --version --help" -- "$cur"))
}
complete -F _heraldd heraldd
