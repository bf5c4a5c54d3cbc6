"""``agenttools completion bash|zsh|fish``: shell completion generated from the parser.

The argparse parser is walked once into a table (per command path: its subcommands, options,
options that take a value and what that value is, and what each positional argument is);
the table is written out as shell code with one small completion function per shell. Client
ids are part of the script (the client table is data shipped with agenttools); bundle and
server names are asked for when completing (``agenttools completion --names tools``), so a
``pip install`` is seen at once. zsh uses the bash function through ``bashcompinit``.
"""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from agenttools_runtime.cli.common import UsageError, add_command, emit, examples

SHELLS = ("bash", "zsh", "fish")

# what a positional argument holds, by its dest (anything else: no completion)
POSITIONAL_KINDS = {
    "target": "client",
    "client": "client",
    "tools": "tools",
    "sources": "tools",  # (export: the installed names; a wheel or directory is typed)
    "name": "tools",
    "server": "servers",
    "paths": "file",
    "wheel": "file",
    "skills": "dir",
    "project": "dir",
}
# what an option's value is, by its metavar as the help shows it (options with choices
# complete those)
VALUE_KINDS = {"DIR": "dir", "OUTDIR": "dir", "FILE": "file", "PATH": "file", "CLIENT": "client"}
# positionals that take a comma-separated list
COMMA_LISTS = {("deploy", "target")}
# options after which a command has no TARGET: its first positional is the next one
SHIFTING_OPTIONS = {"deploy": ("--all-clients", "--detected")}


class Command(NamedTuple):
    """One command path of the parser (``""``, ``"deploy"``, ``"mcp install"``)."""

    path: str
    subcommands: list[str]
    options: list[str]
    values: dict[str, str]  # option -> kind of its value
    positionals: list[str]  # kinds, in order
    repeats: bool  # the last positional takes several values


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "completion",
        run,
        help="print the shell completion script (bash, zsh, fish)",
        description=(
            "Print the shell completion script for SHELL: commands, options, client ids, "
            "and the names of the installed bundles and servers (looked up when you press "
            "TAB). Load it from your shell's start-up file."
        ),
        epilog=examples(
            "bash:  echo 'source <(agenttools completion bash)' >> ~/.bashrc",
            "zsh:   echo 'source <(agenttools completion zsh)' >> ~/.zshrc",
            "fish:  agenttools completion fish > ~/.config/fish/completions/agenttools.fish",
        ),
    )
    parser.add_argument(
        "shell", metavar="SHELL", nargs="?", choices=SHELLS, help="bash, zsh or fish"
    )
    # what the scripts call when completing: one name a line
    parser.add_argument("--names", choices=("tools", "servers"), help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    if args.names:
        print("\n".join(names(args.names)))
        return 0
    if args.shell is None:
        raise UsageError("SHELL is required: bash, zsh or fish")
    script = render(args.shell, commands(args.root_parser))
    emit(args, {"ok": True, "shell": args.shell, "script": script}, script.rstrip("\n"))
    return 0


def names(kind: str) -> list[str]:
    """The names TOOLS accepts, or server names, for the completion scripts (never an
    error: a broken environment just completes nothing)."""
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.errors import AgentToolsError
    from agenttools_runtime.name_hints import installed_names, server_names

    lookup = server_names if kind == "servers" else installed_names
    try:
        return lookup(search_from_args(argparse.Namespace(), quiet=True))
    except (AgentToolsError, OSError):
        return []


# -- the table -------------------------------------------------------------------------------
def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[Command]:
    """Every command path of *parser* (the CLI's, or the parser of command *path*), root
    first."""
    options: list[str] = []
    values: dict[str, str] = {}
    positionals: list[str] = []
    repeats = False
    children: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            children.update(action.choices)
        elif action.option_strings:
            if action.help == argparse.SUPPRESS:
                continue
            options.extend(action.option_strings)
            if action.nargs != 0:
                metavar = action.metavar or action.dest.upper()  # (argparse's default)
                kind = _kind(action, VALUE_KINDS.get(str(metavar), "none"))
                values.update(dict.fromkeys(action.option_strings, kind))
        else:
            kind = _kind(action, POSITIONAL_KINDS.get(action.dest, "none"))
            if (*path[:1], action.dest) in COMMA_LISTS:
                kind = "clients"
            positionals.append(kind)
            repeats = action.nargs in ("+", "*", argparse.REMAINDER)
    found = [Command(" ".join(path), list(children), options, values, positionals, repeats)]
    for name, sub in children.items():
        found += commands(sub, (*path, name))
    return found


def _kind(action: argparse.Action, default: str) -> str:
    """What *action*'s value is: one of its choices where it has them, else *default*."""
    if action.choices:
        return "choice:" + ",".join(str(c) for c in action.choices)
    return default


# -- the scripts -----------------------------------------------------------------------------
def render(shell: str, table: list[Command]) -> str:
    from agenttools_runtime.clients import all_clients

    clients = " ".join(all_clients())
    if shell == "fish":
        return _fish(table, clients)
    script = _bash(table, clients)
    if shell == "zsh":
        return (
            "# zsh completion for agenttools: source <(agenttools completion zsh)\n"
            "(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + script
        )
    return script


def _script(template: str, table: list[Command], clients: str, spec: str, kind: str) -> str:
    """*template* with the client ids, a *spec* case per command path and a *kind* case per
    option whose value completes as something (format strings of the shell's syntax)."""
    specs = [
        spec.format(
            path=c.path,
            subcommands=" ".join(c.subcommands),
            options=" ".join(c.options),
            values=" ".join(c.values),  # the options that take a value
            positionals=" ".join(c.positionals),
            repeats=int(c.repeats),
            shifting=" ".join(SHIFTING_OPTIONS.get(c.path, ())),
        )
        for c in table
    ]
    kinds = [
        kind.format(path=c.path, option=option, kind=value)
        for c in table
        for option, value in c.values.items()
        if value != "none"
    ]
    return (
        template.replace("@CLIENTS@", clients)
        .replace("@SPECS@", "\n".join(specs))
        .replace("@KINDS@", "\n".join(kinds))
    )


def _bash(table: list[Command], clients: str) -> str:
    spec = (
        '    "{path}") subs="{subcommands}"; opts="{options}"; valopts="{values}"; '
        'kinds="{positionals}"; repeats={repeats}; shifting="{shifting}";;'
    )
    return _script(_BASH, table, clients, spec, '    "{path}|{option}") kind="{kind}";;')


_BASH = r"""# bash completion for agenttools (generated from its parser by 'agenttools completion bash')
# load it: source <(agenttools completion bash)
_agenttools_clients="@CLIENTS@"

_agenttools_spec() {
    subs=""; opts=""; valopts=""; kinds=""; repeats=0; shifting=""
    case "$1" in
@SPECS@
    esac
}

_agenttools_kind() {
    kind="none"
    case "$1|$2" in
@KINDS@
    esac
}

_agenttools_words() {
    # COMPREPLY: the words (after the first argument) that start with the first argument
    local cur="$1" w
    shift
    COMPREPLY=()
    for w in "$@"; do
        [[ $w == "$cur"* ]] && COMPREPLY+=("$w")
    done
}

_agenttools_complete_kind() {
    local cur="$2" found words prefix=""
    case "$1" in
    client) _agenttools_words "$cur" $_agenttools_clients ;;
    clients)
        [[ $cur == *,* ]] && prefix="${cur%,*},"
        _agenttools_words "${cur##*,}" $_agenttools_clients
        COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
        compopt -o nospace 2>/dev/null
        ;;
    tools | servers)
        found="$(command agenttools completion --names "$1" 2>/dev/null)"
        local IFS=$'\n'
        _agenttools_words "$cur" $found
        ;;
    file) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
    dir) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null ;;
    choice:*)
        words="${1#choice:}"
        _agenttools_words "$cur" ${words//,/ }
        ;;
    *) COMPREPLY=() ;;
    esac
}

_agenttools() {
    # (no variable named "path": zsh ties it to PATH)
    [[ -n ${ZSH_VERSION-} ]] && setopt local_options sh_word_split
    local cur="${COMP_WORDS[COMP_CWORD]}" command_path="" word i skip="" npos=0 kind
    local subs opts valopts kinds repeats shifting
    _agenttools_spec ""
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if [[ -n $skip ]]; then skip=""; continue; fi
        if [[ $word == -* ]]; then
            [[ " $valopts " == *" $word "* ]] && skip="$word"
            [[ " $shifting " == *" $word "* ]] && npos=$((npos + 1))
            continue
        fi
        if [[ -n $subs && " $subs " == *" $word "* ]]; then
            command_path="${command_path:+$command_path }$word"
            _agenttools_spec "$command_path"
            npos=0
            continue
        fi
        npos=$((npos + 1))
    done
    if [[ -n $skip ]]; then
        _agenttools_kind "$command_path" "$skip"
        _agenttools_complete_kind "$kind" "$cur"
        return 0
    fi
    if [[ $cur == -* ]]; then
        _agenttools_words "$cur" $opts
        return 0
    fi
    if [[ -n $subs ]]; then
        _agenttools_words "$cur" $subs
        return 0
    fi
    local n=0 k chosen="none"
    for k in $kinds; do
        chosen="$k"
        [[ $n -eq $npos ]] && break
        n=$((n + 1))
        chosen="none"
    done
    if [[ $chosen == none && $repeats == 1 && -n $kinds ]]; then
        chosen="${kinds##* }"
    fi
    _agenttools_complete_kind "$chosen" "$cur"
    return 0
}

complete -F _agenttools agenttools
"""


def _fish(table: list[Command], clients: str) -> str:
    spec = (
        "        case '{path}'\n"
        "            set subs {subcommands}\n"
        "            set opts {options}\n"
        "            set valopts {values}\n"
        "            set kinds {positionals}\n"
        "            set repeats {repeats}\n"
        "            set shifting {shifting}"
    )
    return _script(
        _FISH, table, clients, spec, "        case '{path}|{option}'\n            echo '{kind}'"
    )


_FISH = r"""# fish completion for agenttools (generated from its parser by 'agenttools completion fish')
# load it: agenttools completion fish > ~/.config/fish/completions/agenttools.fish
function __agenttools_kind_of_option
    switch "$argv[1]|$argv[2]"
@KINDS@
        case '*'
            echo none
    end
end

function __agenttools_complete_kind
    set -l kind $argv[1]
    set -l cur $argv[2]
    switch $kind
        case client
            string join \n @CLIENTS@
        case clients
            set -l prefix ''
            if string match -q '*,*' -- $cur
                set prefix (string replace -r '[^,]*$' '' -- $cur)
            end
            for c in @CLIENTS@
                echo $prefix$c
            end
        case tools servers
            command agenttools completion --names $kind 2>/dev/null
        case file
            __fish_complete_path $cur
        case dir
            __fish_complete_directories $cur
        case 'choice:*'
            string split ',' -- (string replace 'choice:' '' -- $kind)
    end
end

function __agenttools_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l path ''
    set -l skip ''
    set -l npos 0
    set -l subs; set -l opts; set -l valopts; set -l kinds; set -l repeats 0; set -l shifting
    function __agenttools_spec_into --no-scope-shadowing
        set subs; set opts; set valopts; set kinds; set repeats 0; set shifting
        switch $argv[1]
@SPECS@
        end
    end
    __agenttools_spec_into ''
    for word in $tokens[2..-1]
        if test -n "$skip"
            set skip ''
            continue
        end
        if string match -q -- '-*' $word
            contains -- $word $valopts; and set skip $word
            contains -- $word $shifting; and set npos (math $npos + 1)
            continue
        end
        if test (count $subs) -gt 0; and contains -- $word $subs
            set path (string trim -- "$path $word")
            __agenttools_spec_into $path
            set npos 0
            continue
        end
        set npos (math $npos + 1)
    end
    if test -n "$skip"
        __agenttools_complete_kind (__agenttools_kind_of_option $path $skip) $cur
        return
    end
    if string match -q -- '-*' $cur
        string join \n -- $opts
        return
    end
    if test (count $subs) -gt 0
        string join \n -- $subs
        return
    end
    set -l index (math $npos + 1)
    if test $index -le (count $kinds)
        __agenttools_complete_kind $kinds[$index] $cur
    else if test "$repeats" = 1; and test (count $kinds) -gt 0
        __agenttools_complete_kind $kinds[-1] $cur
    end
end

complete -c agenttools -f -a '(__agenttools_complete)'
"""
