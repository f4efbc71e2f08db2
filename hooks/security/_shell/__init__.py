"""Shell command parsing shared by the security hooks (not a hook itself).

``shlex`` alone is not enough to judge a Bash tool call: it does not know operators, here-docs,
command substitution or wrappers, so ``sudo /bin/rm -r -f "$HOME"`` or
``bash -c "$(echo rm) -rf /"`` would slip through a word check. The package has five parts:

* ``_parser`` tokenises a command the way bash does (quotes, ``$'…'``, escapes, ``$(…)``,
  backticks, ``<(…)``, ``${VAR:-default}``, ``$((…))``, ``~``, comments, line continuations,
  operators, redirections and here-docs) and builds scripts → pipelines → commands, with the
  compound commands (subshells, ``{ …; }``, ``if``, ``for``, ``while``/``until``, ``case``,
  ``[[ … ]]``, ``(( … ))``, functions) as their own nodes (the data model is in ``_model``);
* ``_expand`` resolves words to candidate strings (``$HOME``, ``~``, ``$PWD``, variables
  assigned earlier in the same command, ``${X:-/}`` defaults, brace expansion), or None when
  unknown, and holds the lexical path helpers;
* ``_commands`` knows programs: option splitting, wrappers (``sudo``, ``env``, ``nice``,
  ``timeout``, ``xargs``, ``command``, ``exec``, ``ssh`` …) stripped so rules see the real
  program, how a shell gets its script, what ``echo``/``printf`` (or a one-liner printing one literal) print;
* ``_walk`` lists every command that would run, recursing into command substitutions,
  ``bash -c``, ``eval``, here-doc / here-string / piped scripts fed to a shell, scripts written
  earlier in the same command, ``find -exec``, ``ssh`` remote commands and inline code;
* ``_inline`` reads interpreter code (``python -c``, ``node -e``, here-docs fed to ``python``)
  for the shell commands, deletions and file accesses it contains; ``_code_paths`` finds the
  home-relative and absolute paths such code names in any string form and how it uses them,
  and (``code_writes``) the files it writes, appends to, or copies, moves or links onto.

Parsing errors raise :class:`ShellParseError`; security hooks turn that into a deny.
Standard library only, like every shipped hook.
"""

from __future__ import annotations

from ._code_paths import NAME_ONLY, OPENED_UP, USED, code_paths, code_writes
from ._commands import (
    BUILD_DIRS,
    DECODERS,
    DOWNLOADERS,
    INTERPRETERS,
    PATTERN_FIRST,
    POWERSHELLS,
    SHELLS,
    VALUE_OPTIONS,
    Cmd,
    OptSpec,
    autorun_path,
    board_device,
    build_output,
    checked_key_words,
    chmod_closes_home,
    chmod_grants,
    chmod_tightens,
    fetches_and_runs,
    is_assignment,
    powershell_code,
    printed_text,
    prog_name,
    shell_invocation,
    split_assignment,
    split_options,
    unwrap,
)
from ._expand import (
    GLOB_CHARS,
    MATCH_ALL_GLOBS,
    Ctx,
    brace_expand,
    expand,
    expand_pattern,
    glob_split,
    has_glob,
    is_within,
    make_ctx,
    normalize,
    unknown_then_slash,
)
from ._inline import (
    AWKS,
    awk_parts,
    awk_program,
    code_file_refs,
    code_of,
    home_literals,
    literal_spans,
    only_in_literals,
)
from ._lazy_re import LazyPattern, lazy_compile
from ._model import (
    MAX_CANDIDATES,
    MAX_DEPTH,
    MAX_LENGTH,
    Arith,
    Command,
    Lit,
    Part,
    Pipeline,
    Redirect,
    Script,
    ShellParseError,
    Sub,
    Var,
    Word,
)
from ._parser import decode_escapes, parse
from ._walk import names_in, walk

__all__ = [
    "AWKS",
    "BUILD_DIRS",
    "DECODERS",
    "DOWNLOADERS",
    "GLOB_CHARS",
    "INTERPRETERS",
    "MATCH_ALL_GLOBS",
    "MAX_CANDIDATES",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "NAME_ONLY",
    "OPENED_UP",
    "PATTERN_FIRST",
    "POWERSHELLS",
    "SHELLS",
    "USED",
    "VALUE_OPTIONS",
    "Arith",
    "Cmd",
    "Command",
    "Ctx",
    "LazyPattern",
    "Lit",
    "OptSpec",
    "Part",
    "Pipeline",
    "Redirect",
    "Script",
    "ShellParseError",
    "Sub",
    "Var",
    "Word",
    "autorun_path",
    "awk_parts",
    "awk_program",
    "board_device",
    "brace_expand",
    "build_output",
    "checked_key_words",
    "chmod_closes_home",
    "chmod_grants",
    "chmod_tightens",
    "code_file_refs",
    "code_of",
    "code_paths",
    "code_writes",
    "decode_escapes",
    "expand",
    "expand_pattern",
    "fetches_and_runs",
    "glob_split",
    "has_glob",
    "home_literals",
    "is_assignment",
    "is_within",
    "lazy_compile",
    "literal_spans",
    "make_ctx",
    "names_in",
    "normalize",
    "only_in_literals",
    "parse",
    "powershell_code",
    "printed_text",
    "prog_name",
    "shell_invocation",
    "split_assignment",
    "split_options",
    "unknown_then_slash",
    "unwrap",
    "walk",
]
