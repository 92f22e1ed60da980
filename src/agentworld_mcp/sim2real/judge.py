"""``score --judge``: an OpenAI-compatible model rates each simulated answer against the real one.

The five dimensions are AgentWorldBench's (Qwen-AgentWorld): Format, Factuality,
Consistency, Realism and Quality, each 1-5; the normalised overall is ``(mean - 1) / 4 * 100``.
The judge sees the call, the real answer (the reference) and the simulated one, and answers
a JSON object of the five scores. It is reached over plain HTTP (``POST
{base_url}/chat/completions``), so it needs no extra; an answer it cannot parse is counted,
not guessed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, ModelEndpointError

JSONDict = dict[str, Any]
DIMENSIONS = ("format", "factuality", "consistency", "realism", "quality")
#: Characters of each answer shown to the judge.
ANSWER_LIMIT = 4000

SYSTEM = """You judge a simulated tool environment. Given a tool call, the answer the real tool gave \
(the reference) and the answer a simulator gave, rate the simulated answer from 1 (poor) to 5 (indistinguishable \
from the real tool) on five dimensions:
- format: structure, fields and encoding match what the real tool returns;
- factuality: the facts it states agree with the reference;
- consistency: it agrees with the call's arguments and with what earlier turns established;
- realism: it reads as the real service would answer, errors included;
- quality: it is complete and useful to the agent, as the reference is.
Answer with only a JSON object: {"format": n, "factuality": n, "consistency": n, "realism": n, "quality": n}."""


@dataclass
class Judge:
    """An OpenAI-compatible endpoint that rates answers."""

    base_url: str
    model: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    unparsed: int = 0
    ratings: list[JSONDict] = field(default_factory=list)

    @classmethod
    def from_settings(cls, base_url: str | None, model: str | None) -> Judge:
        url = base_url or os.environ.get("AGENTWORLD_JUDGE_BASE_URL") or os.environ.get("AGENTWORLD_BASE_URL")
        if not url:
            raise ConfigError("--judge needs an OpenAI-compatible endpoint: --judge-url URL "
                              "(or AGENTWORLD_JUDGE_BASE_URL), e.g. http://localhost:8000/v1")
        return cls(url.rstrip("/"), model or os.environ.get("AGENTWORLD_JUDGE_MODEL"), os.environ.get("OPENAI_API_KEY"))

    async def rate(self, client: Any, tool: str, arguments: JSONDict, real: str, simulated: str) -> JSONDict | None:
        """The five scores for one answer, or None when the judge's answer is not five scores."""
        if self.model is None:
            self.model = await self._first_model(client)
        user = (f"Tool call: {tool} {json.dumps(arguments, ensure_ascii=False)}\n\n"
                f"Real answer:\n{real[:ANSWER_LIMIT]}\n\nSimulated answer:\n{simulated[:ANSWER_LIMIT]}")
        body = {"model": self.model, "temperature": 0, "max_tokens": 200,
                "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]}
        try:
            response = await client.post(f"{self.base_url}/chat/completions", json=body, headers=self._headers())
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"] or ""
        except Exception as exc:
            raise ModelEndpointError(f"the judge at {self.base_url} failed: {type(exc).__name__}: {exc}",
                                     hint="check --judge-url and that the server is up") from exc
        scores = parse_scores(content)
        if scores is None:
            self.unparsed += 1
        else:
            self.ratings.append(scores)
        return scores

    async def _first_model(self, client: Any) -> str:
        try:
            response = await client.get(f"{self.base_url}/models", headers=self._headers())
            response.raise_for_status()
            return str(response.json()["data"][0]["id"])
        except Exception as exc:
            raise ModelEndpointError(f"could not list the judge's models at {self.base_url}: {exc}",
                                     hint="give --judge-model") from exc

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}


def parse_scores(content: str) -> JSONDict | None:
    """``{"format": 4, ...}`` (anywhere in the text, after any reasoning) as five integers 1-5."""
    content = re.sub(r"<think>.*?</think>", "", content, flags=re.DOTALL)
    for match in reversed(list(re.finditer(r"\{[^{}]*\}", content))):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        lowered = {str(k).lower(): v for k, v in data.items()} if isinstance(data, dict) else {}
        try:
            scores = {d: int(lowered[d]) for d in DIMENSIONS}
        except (KeyError, TypeError, ValueError):
            continue
        if all(1 <= v <= 5 for v in scores.values()):
            return scores
    return None


def summarize(ratings: list[JSONDict]) -> JSONDict | None:
    """Mean per dimension and the normalised overall ``(mean - 1) / 4 * 100``."""
    if not ratings:
        return None
    out: JSONDict = {d: round(sum(r[d] for r in ratings) / len(ratings), 3) for d in DIMENSIONS}
    mean = sum(out[d] for d in DIMENSIONS) / len(DIMENSIONS)
    out["overall"] = round((mean - 1) / 4 * 100, 1)
    out["rated"] = len(ratings)
    return out


__all__ = ["DIMENSIONS", "Judge", "parse_scores", "summarize"]
