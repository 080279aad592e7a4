"""What the server and its client share: RDF terms as JSON, the token, the limits.

Terms travel as in SPARQL 1.1 Query Results JSON (W3C Recommendation 2013, §3.2.2), by
:func:`provgraph.terms.term_to_json` and :func:`provgraph.terms.term_from_json` (the term codec lives with the terms).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..signing import looks_like_key_material

ENV_TOKEN = "PROVGRAPH_TOKEN"
"""Environment variable holding the token for ingest and updates."""
ENV_TOKEN_FILE = "PROVGRAPH_TOKEN_FILE"
"""Environment variable naming a file whose first line that is not blank is the token."""



_TOKEN_FILE_MAX = 64 * 1024
"""The largest token file read (bytes): a token is a line, not a document."""
_TOKEN_MAX = 4096
"""The longest token accepted (characters)."""


def _may_be_the_token(name: str) -> bool:
    """Whether a token file name that cannot be read may be the token pasted in its place,
    so that an error must not show it. Only a name that is plainly a path is shown: one
    with a folder part (``tokens/serve.txt``, ``./serve.token``) whose folder exists, and
    that does not look like key material. A bare name (``serve.token``, ``hunter2``,
    ``P@ss.word1``, a short JWT) or one whose folder is missing (``abc/def+ghi==``) is not
    told apart from a secret, so it is not shown."""
    if looks_like_key_material(name):
        return True
    if not ("/" in name or (os.altsep is not None and os.altsep in name) or os.sep in name):
        return True
    try:
        return not Path(name).parent.is_dir()
    except (OSError, ValueError):
        return True


def token_from_environment(token_file: str | os.PathLike[str] | None = None) -> str | None:
    """The shared token: from ``token_file``, else ``$PROVGRAPH_TOKEN_FILE``, else
    ``$PROVGRAPH_TOKEN``; ``None`` when none is set. Never from a command line
    (it would show in the process list). A token file's token is its first line that is
    not blank, without surrounding white space; the lines after it are not read.

    Raises:
        StoreError: the token file cannot be read, is not UTF-8, is over 64 KiB, is empty,
            or its first line is not a token (over 4,096 characters, control characters).
    """
    path = token_file if token_file is not None else os.environ.get(ENV_TOKEN_FILE)
    if path is not None and not str(path).strip():  # an unset shell variable, say
        raise StoreError(f"the token file name is empty (--token-file or ${ENV_TOKEN_FILE}): "
                         "give the path of the file holding the token, or leave both unset")
    if path:
        try:
            with open(path, "rb") as f:
                raw = f.read(_TOKEN_FILE_MAX + 1)
            if len(raw) > _TOKEN_FILE_MAX:
                raise ValueError(f"it is larger than {_TOKEN_FILE_MAX // 1024} KiB, too large "
                                 "for a token file")
            lines = raw.decode("utf-8").splitlines()
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name, not UTF-8
            why = (exc.strerror if isinstance(exc, OSError) and exc.strerror else
                   "it is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else str(exc))
            if _may_be_the_token(str(path)):  # a token pasted as the file name
                raise StoreError(f"the token file given cannot be read ({why}), and its name "
                                 "is not shown because it may be the token itself (it looks "
                                 "like a secret, or names no folder that exists): give the "
                                 "path of the file holding the token with its folder "
                                 f"(./FILE, --token-file or ${ENV_TOKEN_FILE}), or the token "
                                 f"in ${ENV_TOKEN}") from exc
            raise StoreError(f"token file {path}: cannot read it: {why}") from exc
        token = next((line.strip() for line in lines if line.strip()), "")
        if not token:
            raise StoreError(f"token file {path} is empty (or blank); write the token on "
                             "its first line")
        if len(token) > _TOKEN_MAX or not token.isprintable():
            raise StoreError(f"token file {path}: its first line is not a token (longer than "
                             f"{_TOKEN_MAX} characters, or holds control characters such as "
                             "NUL); write the token alone on its first line")
        return token
    return os.environ.get(ENV_TOKEN) or None
