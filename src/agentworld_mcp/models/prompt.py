"""Qwen-AgentWorld's MCP protocol: how a tool call becomes chat messages, and back.

Qwen-AgentWorld (QwenLM/Qwen-AgentWorld, ``prompts/mcp/system_prompt.txt`` and
``eval/eval.py``) was trained on one conversation shape, so the language world model
predicts best when it sees exactly that shape:

* a "Tool World Model" system prompt with the tool definitions and demonstrations;
* each earlier call as a user turn (``### Turn N`` / ``**Action:**`` / a json block with
  the tool name and arguments) answered by an assistant turn
  (``**Environment Observation:**`` then the observation);
* the current call as the last user turn.

The prompt text below is this project's own, written in that shape. Two additions serve
this simulator: the world's scenario and seed facts go into the system prompt, and the
current turn carries compact *state facts* from the ledger (what exists, what was deleted),
so even a small model stays consistent with the session.

Prompt cost matters at scale, so the messages keep a stable prefix (system prompt and tools
first, history appended, the volatile state facts only in the last message): the server's
prefix cache (vLLM, SGLang, llama.cpp) then reuses almost all of the previous call's
prompt. Long episodes are compacted: past a token budget, the oldest turns are folded into
one-line summaries in the system prompt. The fold point only moves in large steps (down to
half the budget each time), so most calls still extend the previous prompt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..world.catalog import Catalog, ToolSpec
from ..state.episode import Turn
from ..state.ledger import Ledger
from ..state.result import SIMULATOR_ERROR_META, dump_json
from ..world.world import World

JSONDict = dict[str, Any]
Message = dict[str, str]

OBSERVATION_MARKER = "**Environment Observation:**"
RESPONSE_TAG = "predicted_observation"

SYSTEM_TEMPLATE = """\
# Role

You are a **Tool World Model**: you simulate the environment behind a set of tools that \
follow the Model Context Protocol (MCP). For each tool call you are shown, you predict the \
exact response the real tool would return.

## Task

You see the earlier tool calls of this session with their responses, then the current tool \
call (a JSON object with `name` and `arguments`). Reply with the tool's response to the \
current call, and nothing else.

## Rules

1. **Schema**: when a tool defines an `outputSchema`, the response is one JSON object that \
validates against it. Otherwise match the format the tool's description or the \
demonstrations show (plain text, JSON, CSV...). Do not wrap raw responses in extra JSON.
2. **State**: the session is a stateful environment. Created resources exist afterwards \
with the fields they were created with; updates show in later reads; deleted resources \
are gone, and reading, updating or deleting them again fails with the tool's \
not-found error. Nothing exists before it was created or seeded.
3. **Consistency**: reuse the identifiers, names, values and counts that earlier responses \
and the state facts established. Invent new values (ids, timestamps, content) only for \
things that were never shown, and make them realistic for the domain.
4. **Errors**: invalid or impossible calls fail the way the real tool fails, with its \
wording (for example `Issue not found: 42`, `403 Forbidden`, a validation message).
5. **Format**: answer with `{marker}` followed by the response, or with the response inside \
`<{tag}>...</{tag}>`.

# Environment
{scenario}
# Tools

You can simulate the following tools:

{tool_definitions}
{demonstrations}"""


@dataclass(frozen=True)
class PromptOptions:
    """How prompts are built.

    ``history_budget_tokens`` bounds the history part of each prompt (estimated at
    ``chars_per_token`` characters a token); ``None`` disables compaction.
    """

    history_budget_tokens: int | None = 6000
    chars_per_token: float = 3.5
    max_fact_entities: int = 20
    max_fact_chars: int = 300
    max_summary_chars: int = 160


# -- building ------------------------------------------------------------------------


def render_tool(tool: JSONDict) -> str:
    """One tool definition as compact JSON (name, description, schemas, annotations)."""
    keep = {k: tool[k] for k in ("name", "description", "inputSchema", "outputSchema", "annotations") if k in tool}
    return json.dumps(keep, ensure_ascii=False, sort_keys=False)


def render_demonstrations(world: World) -> str:
    if not world.demonstrations:
        return ""
    parts = ["\n# Demonstrations\n"]
    for i, demo in enumerate(world.demonstrations, 1):
        response = demo.response if isinstance(demo.response, str) else dump_json(demo.response)
        error = " (an error result)" if demo.is_error else ""
        parts.append(
            f"## Example {i}{error}\n{render_action(demo.tool, demo.arguments)}\n{OBSERVATION_MARKER}\n{response}\n"
        )
    return "\n".join(parts)


def render_seed(world: World, options: PromptOptions) -> str:
    if not world.seed:
        return ""
    lines = ["", "## Initial state (exists when the session starts)"]
    for collection, entities in world.seed.items():
        for fields in entities[: options.max_fact_entities]:
            lines.append(f"- {collection}: {_clip(json.dumps(fields, ensure_ascii=False), options.max_fact_chars)}")
        if len(entities) > options.max_fact_entities:
            lines.append(f"- {collection}: ... and {len(entities) - options.max_fact_entities} more")
    return "\n".join(lines) + "\n"


def catalog_system_prompt(catalog: Catalog, options: PromptOptions = PromptOptions()) -> str:
    """:func:`system_prompt` of the catalog's world, built once per catalog and options
    (the llm backend and the trajectory recorder share it)."""
    return catalog.derived(("system_prompt", options), lambda: system_prompt(catalog.world, options))


def system_prompt(world: World, options: PromptOptions = PromptOptions()) -> str:
    """The static part of every prompt of ``world``: identical for all calls and episodes."""
    scenario = (world.scenario.strip() + "\n") if world.scenario.strip() else "A realistic environment for these tools.\n"
    scenario += render_seed(world, options)
    return SYSTEM_TEMPLATE.format(
        marker=OBSERVATION_MARKER,
        tag=RESPONSE_TAG,
        scenario="\n" + scenario,
        tool_definitions="\n".join(render_tool(t) for t in world.tools),
        demonstrations=render_demonstrations(world),
    )


def render_action(tool: str, arguments: JSONDict) -> str:
    call = json.dumps({"name": tool, "arguments": arguments}, ensure_ascii=False, indent=2)
    return f"**Action:**\n```json\n{call}\n```"


def user_turn(index: int, tool: str, arguments: JSONDict) -> str:
    return f"### Turn {index}\n{render_action(tool, arguments)}"


def observation_text(result: JSONDict) -> str:
    """What the agent saw for a recorded turn, as the model should have predicted it."""
    texts = [b.get("text", "") for b in result.get("content") or [] if b.get("type") == "text"]
    if texts:
        return "\n".join(texts)
    if result.get("structuredContent") is not None:
        return dump_json(result["structuredContent"])
    return ""


def assistant_turn(result: JSONDict) -> str:
    return f"{OBSERVATION_MARKER}\n{observation_text(result)}"


def in_history(turn: Turn) -> bool:
    """Simulator failures are not world behaviour: the model must not learn from them."""
    return SIMULATOR_ERROR_META not in (turn.result.get("_meta") or {})


def state_facts(ledger: Ledger, tool: ToolSpec, arguments: JSONDict, options: PromptOptions) -> str:
    """Compact facts from the ledger that bear on this call: the target entity and its collection."""
    role = tool.role_for(arguments)  # a consolidated tool's action argument selects what the call does
    lines: list[str] = []
    for name in role.key_args:
        value = arguments.get(name)
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            continue
        entity = ledger.get(role.collection, value, include_deleted=True)
        if entity is None:
            continue
        if entity.alive:
            fields = _clip(json.dumps(entity.fields, ensure_ascii=False), options.max_fact_chars)
            lines.append(f"- {role.collection} {entity.key} exists: {fields}")
        else:
            lines.append(f"- {role.collection} {entity.key} was deleted (turn {entity.deleted_turn}); it no longer exists")
        break
    alive = ledger.items(role.collection)
    if alive and role.collection in ledger.collections():
        keys = ", ".join(e.key for e in alive[: options.max_fact_entities])
        more = f" and {len(alive) - options.max_fact_entities} more" if len(alive) > options.max_fact_entities else ""
        lines.append(f"- {role.collection} that exist now: {keys}{more}")
    if not lines:
        return ""
    return "\n\n**State facts:**\n" + "\n".join(lines)


def compaction_start(sizes: list[int], budget: int | None) -> int:
    """How many of the oldest turns to fold, given each turn's size in tokens.

    Defined by replaying the episode: the fold point stays put while the kept history
    fits the budget, and when it overflows it jumps far enough that the history left is at
    most half the budget. Being a pure function of the history, a replayed episode gets
    the same prompts (cassettes match) and most calls extend the previous prompt.
    """
    if budget is None:
        return 0
    start, total = 0, 0
    for size in sizes:
        total += size
        if total > budget:
            while start < len(sizes) and total > budget // 2:
                total -= sizes[start]
                start += 1
    return start


def fold(turns: list[Turn], options: PromptOptions) -> str:
    """Older turns as one-line summaries, newest kept first, within half the history budget.

    What is dropped is still in the ledger, which the current turn's state facts draw on.
    """
    budget = (options.history_budget_tokens or 0) // 2
    lines: list[str] = []
    used = 0
    for t in reversed(turns):
        line = summarise_turn(t, options.max_summary_chars)
        used += estimate_tokens(line, options)
        if used > budget:
            break
        lines.append(line)
    omitted = len(turns) - len(lines)
    head = f"({omitted} earlier turns omitted; the state facts are authoritative)\n" if omitted else ""
    return f"\n# Session so far (earlier turns, summarised)\n\n{head}" + "\n".join(reversed(lines)) + "\n"


def summarise_turn(turn: Turn, max_chars: int) -> str:
    args = _clip(json.dumps(turn.arguments, ensure_ascii=False, sort_keys=True), max_chars // 2)
    status = "error" if turn.result.get("isError") else "ok"
    observation = _clip(" ".join(observation_text(turn.result).split()), max_chars // 2)
    return f"- Turn {turn.index}: {turn.tool}({args}) -> {status}: {observation}"


def build_messages(
    world: World,
    tool: ToolSpec,
    arguments: JSONDict,
    turn: int,
    history: list[Turn],
    ledger: Ledger,
    *,
    instructions: list[str] | None = None,
    options: PromptOptions = PromptOptions(),
    system: str | None = None,
) -> list[Message]:
    """The chat messages that ask the world model for the response to one call."""
    kept = [t for t in history if in_history(t)]
    pairs = [(user_turn(t.index, t.tool, t.arguments), assistant_turn(t.result)) for t in kept]
    sizes = [estimate_tokens(u + a, options) for u, a in pairs]
    start = compaction_start(sizes, options.history_budget_tokens)
    system_text = system if system is not None else system_prompt(world, options)
    if start:
        system_text += fold(kept[:start], options)
    messages: list[Message] = [{"role": "system", "content": system_text}]
    for user, assistant in pairs[start:]:
        messages.append({"role": "user", "content": user})
        messages.append({"role": "assistant", "content": assistant})
    current = user_turn(turn, tool.name, arguments)
    current += state_facts(ledger, tool, arguments, options)
    if instructions:
        current += "\n\n**Environment events:**\n" + "\n".join(f"- {i}" for i in instructions)
    messages.append({"role": "user", "content": current})
    return messages


def estimate_tokens(text: str, options: PromptOptions = PromptOptions()) -> int:
    return int(len(text) / options.chars_per_token) + 1


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


# -- parsing --------------------------------------------------------------------------

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_TAG_OPEN = re.compile(rf"<{RESPONSE_TAG}>", re.IGNORECASE)
_TAG_CLOSE = re.compile(rf"</{RESPONSE_TAG}>", re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


def strip_thinking(text: str) -> str:
    """Drop reasoning: ``<think>...</think>`` blocks, anything before an orphan ``</think>``,
    and an unclosed ``<think>`` up to the response tag (or the end)."""
    while True:
        opened = _THINK_OPEN.search(text)
        closed = _THINK_CLOSE.search(text)
        if closed and (not opened or closed.start() < opened.start()):
            text = text[closed.end():]  # orphan close: the reasoning started before the text
        elif opened and closed:
            after = _THINK_CLOSE.search(text, opened.end())
            if after is None:  # only an earlier orphan close existed; handled above
                break
            text = text[: opened.start()] + text[after.end():]
        elif opened:
            tag = _TAG_OPEN.search(text, opened.end())
            text = text[: opened.start()] + (text[tag.start():] if tag else "")
        else:
            break
    return text.strip()


def extract_observation(content: str | None) -> str:
    """The observation text in a completion's ``content`` (reasoning_content is never looked at)."""
    text = strip_thinking(content or "")
    opens = list(_TAG_OPEN.finditer(text))
    if opens:
        start = opens[-1].end()
        close = _TAG_CLOSE.search(text, start)
        text = text[start: close.start()] if close else text[start:]
    text = text.strip()
    if text.startswith(OBSERVATION_MARKER):
        text = text[len(OBSERVATION_MARKER):]
    else:
        text = text.replace(OBSERVATION_MARKER, "")
    text = text.strip()
    fence = _FENCE.match(text)
    if fence:
        text = fence.group(1).strip()
    return text


def unwrap_mcp(value: Any) -> Any:
    """Unwrap MCP content wrappers the model may imitate: a text block, a list of them,
    or a whole ``{"content": [...]}`` result (its structuredContent when it has one)."""
    for _ in range(4):
        if isinstance(value, dict):
            if value.get("structuredContent") is not None and "content" in value:
                value = value["structuredContent"]
                continue
            if set(value) <= {"content", "isError"} and isinstance(value.get("content"), list):
                value = value["content"]
                continue
            if value.get("type") == "text" and isinstance(value.get("text"), str) and set(value) <= {"type", "text", "annotations"}:
                value = value["text"]
                continue
        if isinstance(value, list) and value and all(
            isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in value
        ):
            value = "\n".join(b["text"] for b in value)
            continue
        break
    return value


class ParseError(ValueError):
    """The completion could not be read as the tool's response; the message says why."""


def parse_observation(content: str | None, tool: ToolSpec) -> Any:
    """The tool response in a completion: JSON for tools with an outputSchema, text otherwise.

    Raises :class:`ParseError` when a structured tool's response is not JSON.
    """
    text = extract_observation(content)
    if not text:
        raise ParseError("the response was empty (no observation after removing reasoning and tags)")
    value = _loads(text)
    if value is not _NOT_JSON:
        value = unwrap_mcp(value)
        if isinstance(value, str):  # a text wrapper: its text is the response
            text = value.strip()
            value = _loads(text)
    if tool.output_schema is None:
        return text
    if value is _NOT_JSON or isinstance(value, str):
        raise ParseError(
            f"the response is not JSON, but tool {tool.name!r} has an outputSchema; "
            f"reply with one JSON object only (got {_clip(text, 120)!r})"
        )
    return value


_NOT_JSON = object()


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        pass
    # A JSON object followed or preceded by chatter: take the outermost {...}.
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        try:
            return json.loads(text[first: last + 1])
        except (json.JSONDecodeError, ValueError):
            return _NOT_JSON
    return _NOT_JSON
