"""Secrets kept out of recordings, learned worlds, reports, exports and logs.

Three ways a value is found secret, all replaced by :data:`REDACTED`:

* by name: an argument (or a result field, or ``name=value`` / ``"name": "value"`` inside a
  text) whose name, normalised (``accessKey``, ``access-key`` and ``access_key`` are one
  name), holds a word of :data:`SECRET_WORDS` (``token_count``, ``max_tokens`` and
  pagination tokens are no secrets);
* by value: a string that has the form of a credential whatever its name
  (:data:`SECRET_PATTERNS`, a compact table after the rules of detect-secrets and
  gitleaks; ordinary ids, UUIDs and hashes do not match: no entropy guessing);
* by echo: a value found secret in a call's arguments (or the upstream's headers) is
  replaced wherever it shows up again, in the result too, inside larger strings and
  JSON text (its JSON- and URL-escaped forms as well).

Writers redact before writing (``proxy --record``); readers redact again as they read
(``learn``, ``report``, ``export``): a file written before redaction existed is safe too.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

JSONDict = dict[str, Any]

#: What a secret is replaced by (the marker recordings have always carried).
REDACTED = "[redacted]"
#: A name holding one of these, once lower-cased without ``_``, ``-``, ``.`` and spaces, names a secret.
SECRET_WORDS = ("token", "secret", "password", "passwd", "passphrase", "apikey", "accesskey", "accountkey",
                "privatekey", "signingkey", "encryptionkey", "clientsecret", "authorization", "authkey",
                "cookie", "sessionid", "sessionkey", "credential", "bearer", "connectionstring")
#: Whole names that are secrets though too short to be words of :data:`SECRET_WORDS`.
SECRET_NAMES = frozenset({"auth", "pwd", "pass", "session", "jwt", "dsn", "otp", "pin", "cvv", "cvc", "ssn"})
#: Parts of a name that make a "token" no secret: counts and limits of model tokens, pagination cursors.
_NOT_SECRET = re.compile(r"(?:max|min|num|total|input|output|prompt|completion|reasoning|cached)tokens?|"
                         r"tokens?(?:count|limit|usage|used|budget|type|estimate)|"
                         r"(?:page|next|prev|previous|continuation|sync|resume|cursor)token")
#: Secrets shorter than this are not searched for again (``"abc"`` would shred every result).
MIN_ECHO = 4

#: Values that are credentials whatever their name: (what, pattern). A pattern with a group redacts only
#: the group (``Bearer [redacted]``, ``postgres://ada:[redacted]@db``); forms after detect-secrets' plugins
#: and gitleaks' rules, narrowed so that ids, UUIDs and hex digests never match.
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((what, re.compile(pattern)) for what, pattern in (
    ("PEM private key block", r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY"
                              r"(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)"),
    ("URL with a password", r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\"'\\]+:([^\s@/\"'\\]+)@"),
    ("authorization scheme", r"\b(?:[Bb]earer|BEARER|Basic|Token)\s+(?=[A-Za-z0-9._~+/=-]*[0-9])([A-Za-z0-9._~+/=-]{8,})"),
    ("Stripe secret or restricted key", r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{10,}"),
    ("Stripe webhook secret", r"\bwhsec_[A-Za-z0-9+/]{20,}"),
    ("OpenAI or Anthropic key", r"\bsk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("GitLab token", r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ffct|imt|agent)-[A-Za-z0-9_-]{20,}"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("Slack token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}"),
    ("AWS access key id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("AWS secret access key", r"(?i:aws)[A-Za-z0-9_ .-]{0,30}?(?i:secret|key)[A-Za-z0-9_ .-]{0,20}?[\"']?\s*[:=]\s*[\"']?"
                              r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("SendGrid key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
))
#: ``name=value``, ``name: value``, ``"name": "value"`` inside a text (query strings, JSON text, reprs, configs).
#: The value is looked at, not consumed, so that ``url: https://h/?token=x`` still finds ``token``.
_NAMED_IN_TEXT = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_.-]{1,60})[\"']?\s*[:=]\s*"
                            r"(?=\"(?P<dq>[^\"\\\n]{3,})\"|'(?P<sq>[^'\\\n]{3,})'|(?P<bare>[^\s\"',;&}\]\[<>)]{3,}))")


def is_secret_name(name: str) -> bool:
    """Whether a field or argument called ``name`` holds a secret (see :data:`SECRET_WORDS`)."""
    flat = re.sub(r"[\s_.-]", "", name).lower()
    if flat in SECRET_NAMES:
        return True
    flat = _NOT_SECRET.sub("", flat)
    return any(word in flat for word in SECRET_WORDS)


def _redact_named(text: str) -> str:
    """Values under secret names inside ``text`` (``password=x``, ``"api_key": "x"``), left to right."""
    out, pos = [], 0
    for match in _NAMED_IN_TEXT.finditer(text):
        group = next(g for g in ("dq", "sq", "bare") if match[g] is not None)
        start, end = match.span(group)
        if match.start() < pos or not is_secret_name(match["name"]) or text.startswith(" " + REDACTED, end):
            continue  # inside a value already redacted; no secret; ``Authorization: Bearer [redacted]``
        out += [text[pos:start], REDACTED]
        pos = end
    return "".join(out) + text[pos:]


def _replace(match: re.Match[str]) -> str:
    if not match.lastindex:
        return REDACTED
    start, end = match.start(1) - match.start(), match.end(1) - match.start()  # only ``Bearer x``'s ``x``
    return match[0][:start] + REDACTED + match[0][end:]


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the given ``secrets`` (and their escaped forms), credential-looking values and values
    under secret names replaced by :data:`REDACTED`."""
    for secret in echo_forms(secrets):
        text = text.replace(secret, REDACTED)
    for _, pattern in SECRET_PATTERNS:
        text = pattern.sub(_replace, text)
    return _redact_named(text) if ":" in text or "=" in text else text


def echo_forms(secrets: Iterable[str]) -> list[str]:
    """Each secret as it may appear again: itself, JSON-escaped (inside JSON text), URL-encoded; longest first."""
    forms = set()
    for secret in secrets:
        if len(secret) >= MIN_ECHO and secret != REDACTED:
            forms |= {secret, json.dumps(secret, ensure_ascii=False)[1:-1], quote(secret, safe="")}
    return sorted(forms, key=len, reverse=True)


def redact(value: Any, secrets: Iterable[str] = (), *, by_name: bool = True) -> Any:
    """``value`` with every entry under a secret name (``by_name``) replaced at any depth, and every string
    redacted as :func:`redact_text` does."""
    secrets = tuple(secrets)
    if isinstance(value, dict):
        return {k: _blank(v) if by_name and isinstance(k, str) and is_secret_name(k) else
                redact(v, secrets, by_name=by_name) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets, by_name=by_name) for v in value]
    if isinstance(value, str):
        return redact_text(value, secrets)
    return value


def _blank(value: Any) -> Any:
    """A secret-named entry: every value in it redacted, its shape (keys, lengths, absent values) kept."""
    if isinstance(value, dict):
        return {k: _blank(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return value if value is None or value == "" or isinstance(value, bool) else REDACTED


def secrets_in(value: Any) -> list[str]:
    """The strings of ``value`` that are secret (under a secret name, or matching a pattern): what to look for
    again in the answer to a call."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and is_secret_name(k):
                found.extend(s for s in _strings(v) if len(s) >= MIN_ECHO)
            else:
                found.extend(secrets_in(v))
    elif isinstance(value, list):
        for v in value:
            found.extend(secrets_in(v))
    elif isinstance(value, str):
        for _, pattern in SECRET_PATTERNS:
            found.extend(m[1] if m.lastindex else m[0] for m in pattern.finditer(value))
    return found


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    number = str(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""
    return [number] if len(number) >= 6 else []  # a PIN of 4 digits searched for again would eat ids


def redact_call(arguments: JSONDict, result: JSONDict, secrets: Iterable[str] = ()) -> tuple[JSONDict, JSONDict]:
    """A call's arguments and result, redacted: the result by name and pattern too, and every secret the
    arguments held (and the given ``secrets``, e.g. the upstream's headers) wherever the result echoes it."""
    known = (*secrets, *secrets_in(arguments))
    return redact(arguments, known), redact(result, known)


def redact_line(line: JSONDict, secrets: Iterable[str] = ()) -> JSONDict:
    """A trajectory line as a reader may show it: a turn (``arguments``/``result``), an AgentWorldBench sample
    (the turn under ``agentworld``, its texts in ``prompt``/``response``/``current_prompt``) or a header."""
    secrets = tuple(secrets)
    out = dict(line)
    nested = line.get("agentworld")
    if isinstance(nested, dict):
        out["agentworld"] = redact_line(nested, secrets)
        secrets = (*secrets, *secrets_in(nested.get("arguments")))
    given, answered = line.get("arguments"), line.get("result")
    if isinstance(given, dict):
        arguments, result = redact_call(given, answered if isinstance(answered, dict) else {}, secrets)
        out["arguments"] = arguments
        if "result" in line:
            out["result"] = result if isinstance(answered, dict) else redact(answered, secrets)
        secrets = (*secrets, *secrets_in(given))
    for key, value in line.items():
        if key not in ("agentworld", "arguments", "result"):
            out[key] = redact(value, secrets, by_name=False)
    return out


# -- logs ------------------------------------------------------------------------------------------

_known: set[str] = set()
_known_lock = threading.Lock()


def register_secrets(values: Iterable[str]) -> None:
    """Values (the upstream's headers) that no log line may show, at any verbosity."""
    with _known_lock:
        _known.update(v for v in values if len(v) >= MIN_ECHO)


class RedactingFilter(logging.Filter):
    """Redacts every record a handler emits: registered secrets, credential-looking values, values under
    secret names (the SDK logs whole messages at DEBUG, arguments and results included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: logging reports it itself
            return True
        with _known_lock:
            known = tuple(_known)
        cleaned = redact_text(message, known)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info), known)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Put a :class:`RedactingFilter` on every handler of ``logger`` (the root logger): a handler's filter sees
    the records of every logger below it, a logger's only its own."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


__all__ = ["MIN_ECHO", "REDACTED", "SECRET_NAMES", "SECRET_PATTERNS", "SECRET_WORDS", "RedactingFilter", "echo_forms",
           "install_log_redaction", "is_secret_name", "redact", "redact_call", "redact_line", "redact_text",
           "register_secrets", "secrets_in"]
