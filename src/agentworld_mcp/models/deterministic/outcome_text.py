"""Fields of an answer that describe the call's outcome: written about the call, not invented.

An outputSchema often carries, beside the data, a sentence and a flag about how the call went:
``message: "A message describing the result of the send attempt"``, ``sent_status: "True if the
message was sent successfully, False otherwise"``. Generated, the sentence is an unrelated
phrase (or, for a field named like an argument, the argument echoed: the text that was sent),
and the flag a coin toss. Real services write the sentence from the call (``Message sent to
'USR002' successfully.``) and set the flag for a call that succeeded. So, where the field's
*description* says so:

* a string field described as a message/text about the result (outcome, status) of the call is
  a sentence naming what was done, in the tool's own words (verb and noun of its name), and the
  short values the call gave (ids, names: what a reader checks it against);
* a boolean field described as true when the call succeeds is true (the answer is a success:
  errors never reach here);
* a field described as the reason for a failure (``verification_failure: "The reason for the
  verification failure"``) is left out, unless the schema requires it: a call that succeeded
  has no failure to explain.

Only answers that are JSON objects with an outputSchema; nothing else is touched.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ...world.roles import singular, words
from ..base import Prediction, Step

JSONDict = dict[str, Any]

#: "A message describing the result of the login attempt", "text about the outcome", "status message".
_RESULT_TEXT = re.compile(r"\b(?:message|text|string|sentence|description)\b[^.]*?\b(?:describ\w*|about|indicat\w*|"
                          r"explain\w*|report\w*|summari\w*|of)\b[^.]*?\b(?:result|outcome|status|attempt)\b",
                          re.IGNORECASE)
#: "True if the contact was added successfully, False otherwise".
_SUCCESS_FLAG = re.compile(r"\btrue\b[^.]*?\b(?:if|when|whether)\b[^.]*?\b(?:success\w*|succeed\w*)", re.IGNORECASE)
#: "The reason for the verification failure", "why the request was rejected", "error message if it failed".
_FAILURE_REASON = re.compile(r"\b(?:reason|cause|why|explanation)\b[^.]*?\b(?:fail\w*|error\w*|reject\w*|declin\w*|denied)"
                             r"|\berror message\b", re.IGNORECASE)
#: Argument values longer than this are content (a message body), not what a reader checks the sentence for.
_SHORT = 40
_WORDS = 3
_PAST = {"send": "sent", "set": "set", "get": "retrieved", "put": "put", "login": "logged in", "logout": "logged out",
         "log": "logged", "make": "made", "run": "run", "begin": "begun", "find": "found", "buy": "bought",
         "sell": "sold", "pay": "paid", "write": "written", "read": "read", "build": "built", "shut": "shut"}


def described(step: Step, answer: Prediction) -> Prediction:
    """``answer`` with its outcome sentence and success flags written from the call."""
    out = step.tool.output_schema
    body = answer.observation
    if answer.is_error or answer.text is not None or not out or not isinstance(body, dict):
        return answer
    changed = dict(body)
    required = set(out.get("required") or [])
    for name, sub in (out.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        text = str(sub.get("description") or "")
        if _FAILURE_REASON.search(text) and not _RESULT_TEXT.search(text) and name not in required:
            changed.pop(name, None)
        elif sub.get("type") == "string" and _RESULT_TEXT.search(text):
            changed[name] = sentence(step)  # written even where the answer left it out: it is what the call reports
        elif sub.get("type") == "boolean" and _SUCCESS_FLAG.search(text):
            changed[name] = True
    if changed == body:
        return answer
    return dataclasses.replace(answer, observation=changed)


def sentence(step: Step) -> str:
    """``Message sent successfully (receiver_id 'USR002').``: the tool's verb and noun, the call's short values."""
    tokens = words(step.tool.name)
    verb = next((t for t in tokens if t in _PAST or _verbish(t)), tokens[0] if tokens else "done")
    nouns = [singular(t) for t in tokens if t != verb]
    subject = " ".join(nouns[-1:]) or "request"
    given = [f"{name} '{value}'" for name, value in step.arguments.items()
             if isinstance(value, (str, int, float)) and not isinstance(value, bool) and 0 < len(str(value)) <= _SHORT
             and len(str(value).split()) <= _WORDS]
    detail = f" ({', '.join(given)})" if given else ""
    return f"{subject.capitalize()} {_past(verb)} successfully{detail}."


def _verbish(token: str) -> bool:
    return token in ("add", "create", "delete", "remove", "update", "cancel", "book", "post", "register", "follow",
                     "unfollow", "close", "open", "start", "stop", "reset", "save", "share", "submit", "upload",
                     "approve", "reject", "assign", "archive", "restore", "move", "copy", "rename", "mark")


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", verb) and len(verb) <= 4:  # stop -> stopped
        return verb + verb[-1] + "ed"
    return verb + "ed"


__all__ = ["described", "sentence"]
