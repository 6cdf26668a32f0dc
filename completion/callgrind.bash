# bash completion for callgrind(1): subcommands, their options, the values of options that take
# a fixed set, and file names everywhere else. `make install` puts it where bash-completion
# finds it (PREFIX/share/bash-completion/completions/callgrind); or source it from ~/.bashrc.

_callgrind_options() {
    local strict="--strict"
    case "$1" in
        annotate) echo "--show --sort --threshold --auto --context -I --include --inclusive --tree --show-percs --source --inlined $strict" ;;
        top) echo "-e --event -n --limit $strict" ;;
        functions) echo "--format --events $strict" ;;
        callers|callees) echo "-e --event -n --limit $strict" ;;
        diff) echo "-e --event -n --limit --fail-above --min --by $strict" ;;
        merge) echo "-o --output --no-compress $strict" ;;
        select) echo "-o --output --keep --drop --threshold --by -e --event --dropped-name --no-compress $strict" ;;
        convert) echo "--to -o --output -e --event --no-compress $strict" ;;
        graph) echo "-o --output -T --format -e --event -n --node-threshold --edge-threshold --root --leaf --strip --wrap --colors --no-self --title $strict" ;;
        flame) echo "-o --output -T --format -e --event --diff --by --normalize --icicle --threads --min-share --max-depth --focus --mark --colors --width --title --no-strip --file --object $strict" ;;
        html) echo "-o --output --show --threshold -I --include --max-source --graphs --asm --no-flame --title $strict" ;;
        asm) echo "--show --context --hot --show-percs --object --dir --offset --objdump $strict" ;;
        info) echo "$strict" ;;
    esac
}

# The values an option takes, when they are a fixed set; "FILE" for a file name; "" for a
# value that cannot be completed (a number, an event, a pattern).
_callgrind_values() {
    case "$1:$2" in
        *:--color) echo "never always auto" ;;
        *:--strict|annotate:--auto|annotate:--inclusive|annotate:--show-percs) echo "yes no" ;;
        annotate:--tree) echo "none caller calling both" ;;
        annotate:--inlined) echo "split merge" ;;
        functions:--format) echo "tsv csv json" ;;
        diff:--by) echo "self inclusive" ;;
        select:--by) echo "inclusive self" ;;
        convert:--to) echo "callgrind webgrind" ;;
        graph:-T|graph:--format) echo "dot svg png pdf" ;;
        graph:--colors) echo "color gray bw" ;;
        flame:-T|flame:--format) echo "svg folded" ;;
        flame:--by) echo "self total" ;;
        flame:--colors) echo "object file name" ;;
        asm:--show-percs) echo "yes no" ;;
        *:-o|*:--output|annotate:--source|flame:--diff|asm:--object|asm:--objdump) echo "FILE" ;;
        annotate:-I|annotate:--include|html:-I|html:--include|asm:--dir) echo "DIR" ;;
        *) echo "" ;;
    esac
}

# Whether option $2 of command $1 takes a value.
_callgrind_takes_value() {
    case "$1:$2" in
        flame:--file|flame:--object) return 1 ;;
    esac
    case "$2" in
        --no-compress|--strip|--no-self|--no-flame|--normalize|--icicle|--threads|--no-strip|-h|--help|--version) return 1 ;;
        -*) return 0 ;;
    esac
    return 1
}

_callgrind() {
    local cur prev cmd word i values
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    # bash splits "--opt=value" at "=" (COMP_WORDBREAKS): "--opt" "=" "value"
    if [[ "$cur" == "=" ]]; then
        cur=""
    elif [[ "$prev" == "=" ]]; then
        prev="${COMP_WORDS[COMP_CWORD-2]}"
    fi
    local commands="annotate top functions callers callees diff merge select convert graph flame html asm info help"

    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        case "$word" in
            --color) ((i++)); [[ "${COMP_WORDS[i]}" == "=" ]] && ((i++)) ;;
            -*|=) ;;
            *) cmd="$word"; break ;;
        esac
    done

    if [[ -z "$cmd" ]]; then
        if [[ "$prev" == "--color" ]]; then
            COMPREPLY=($(compgen -W "never always auto" -- "$cur"))
        elif [[ "$cur" == --color=* ]]; then
            COMPREPLY=($(compgen -W "never always auto" -- "${cur#--color=}"))
        elif [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "-h --help --version --color" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return 0
    fi
    if [[ "$cmd" == help ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return 0
    fi

    # --opt=value
    if [[ "$cur" == --*=* ]]; then
        values=$(_callgrind_values "$cmd" "${cur%%=*}")
        case "$values" in
            FILE) COMPREPLY=($(compgen -f -- "${cur#*=}")) ;;
            DIR) COMPREPLY=($(compgen -d -- "${cur#*=}")) ;;
            *) COMPREPLY=($(compgen -W "$values" -- "${cur#*=}")) ;;
        esac
        return 0
    fi
    # --opt value
    if [[ "$prev" == -* ]] && _callgrind_takes_value "$cmd" "$prev"; then
        values=$(_callgrind_values "$cmd" "$prev")
        case "$values" in
            FILE) COMPREPLY=($(compgen -f -- "$cur")) ;;
            DIR) COMPREPLY=($(compgen -d -- "$cur")) ;;
            *) COMPREPLY=($(compgen -W "$values" -- "$cur")) ;;
        esac
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "-h --help --color $(_callgrind_options "$cmd")" -- "$cur"))
        return 0
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
}

complete -o filenames -o bashdefault -F _callgrind callgrind
