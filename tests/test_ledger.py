"""The ledger: keys of every kind, statuses and turns, nested entities, persistence."""

from __future__ import annotations

from agentworld_mcp import Effect, Ledger, Simulator, load_world
from agentworld_mcp.models.base import Prediction, Step
from agentworld_mcp.state.ledger import compound_key, identity
from agentworld_mcp.pipeline.reconcile import infer_effects

from .scenarios import WORLDS


def test_identity_prefers_id_then_other_keys_then_compound():
    assert identity({"id": 7, "name": "x"}) == ("id", "7")
    assert identity({"issue_id": 3, "body": "b"}) == ("issue_id", "3")
    assert identity({"uuid": "u-1"}) == ("uuid", "u-1")
    assert identity({"email": "a@b.c", "plan": "pro"}) == ("email", "a@b.c")
    assert identity({"path": "/w/./src//a.py"}) == ("path", "/w/src/a.py")
    assert identity({"from": "A", "to": "B", "relationType": "knows"}) == (
        "from+relationType+to", compound_key("A", "knows", "B"))
    assert identity({"title": "no key"}) is None


def test_seed_state_by_collection_and_fresh_numbers_after_it():
    ledger = Ledger()
    ledger.seed({"issues": [{"id": 1, "title": "a"}, {"id": 9, "title": "b"}],
                 "entities": [{"name": "Ada", "entityType": "person", "observations": []}],
                 "files": [{"path": "/w/a.txt", "content": "x"}]})
    assert ledger.get("issues", 9).fields["title"] == "b" and ledger.get("issues", "9").status == "seeded"
    assert ledger.get("entities", "Ada").created_turn == 0
    assert ledger.get("files", "/w/a.txt").fields["content"] == "x"
    assert ledger.next_number("issues") == 10
    assert ledger.next_number("issues") == 10  # asking does not take the number
    assert ledger.collections() == ["entities", "files", "issues"]


def test_every_entity_knows_what_happened_to_it_and_when():
    ledger = Ledger()
    ledger.apply([Effect("create", "issues", "1", {"id": 1, "title": "a", "status": "open"})], turn=1)
    ledger.apply([Effect("update", "issues", "1", {"status": "closed"})], turn=2)
    entity = ledger.get("issues", 1)
    assert (entity.status, entity.created_turn, entity.updated_turn) == ("updated", 1, 2)
    assert entity.fields == {"id": 1, "title": "a", "status": "closed"}  # exactly the given field changed
    ledger.apply([Effect("delete", "issues", "1")], turn=3)
    assert ledger.get("issues", 1) is None and ledger.items("issues") == []
    gone = ledger.get("issues", 1, include_deleted=True)
    assert (gone.status, gone.deleted_turn) == ("deleted", 3)
    ledger.apply([Effect("update", "issues", "1", {"title": "zombie"})], turn=4)  # no effect on the deleted
    assert gone.fields["title"] == "a"


def test_move_rekeys_and_the_old_key_reads_as_deleted():
    ledger = Ledger()
    ledger.apply([Effect("create", "files", "/a.txt", {"path": "/a.txt", "content": "hi"})], turn=1)
    ledger.apply([Effect("move", "files", "/a.txt", {"path": "/b.txt"}, new_key="/b.txt")], turn=2)
    assert ledger.get("files", "/a.txt") is None
    assert ledger.get("files", "/b.txt").fields == {"path": "/b.txt", "content": "hi"}


def test_nested_entities_and_arrays_of_them_are_tracked():
    ledger = Ledger()
    ledger.apply([Effect("create", "issues", "5", {
        "id": 5, "labels": [{"name": "bug"}, {"name": "ui"}], "assignee": {"login": "ada", "id": 42}})], turn=1)
    assert ledger.get("labels", "bug").fields == {"name": "bug"}
    assert ledger.get("assignees", "42").fields["login"] == "ada"
    assert ledger.get("labels", "ui").status == "observed"


def test_observe_fills_in_without_counting_as_a_change():
    ledger = Ledger()
    ledger.seed({"issues": [{"id": 1, "title": "a"}]})
    ledger.apply([Effect("observe", "issues", "1", {"url": "https://x/1", "title": "ignored"})], turn=4)
    entity = ledger.get("issues", 1)
    assert entity.fields == {"id": 1, "title": "a", "url": "https://x/1"} and entity.status == "seeded"


def test_round_trip_and_snapshot():
    ledger = Ledger()
    ledger.seed({"issues": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]})
    ledger.apply([Effect("delete", "issues", "2")], turn=1)
    again = Ledger.from_dict(ledger.to_dict())
    assert again.to_dict() == ledger.to_dict()
    assert again.snapshot() == {"issues": [{"id": 1, "title": "a"}]}
    assert again.get("issues", 2, include_deleted=True).status == "deleted"
    assert again.next_number("issues") == 3


async def test_a_language_models_creation_is_keyed_by_the_id_it_gave():
    """Effects of an LLM observation: the deterministic model's, with the id the model chose."""
    sim = Simulator(load_world(WORLDS / "issue-tracker.yaml"))
    episode = await sim.episode("llm")
    spec = sim.catalog["create_issue"]
    step = Step(sim.world, spec, {"title": "From the model"}, episode, 1, episode.rng(1))
    observation = {"id": 77, "title": "From the model", "status": "open", "priority": "low",
                   "created_at": "2026-01-01T00:00:00Z", "url": "https://t/77"}
    effects = infer_effects(step, Prediction(observation))
    assert [(e.op, e.collection, e.key) for e in effects] == [("create", "issues", "77")]
    assert effects[0].fields["priority"] == "low"  # what the model said wins over defaults
    update = Step(sim.world, sim.catalog["update_issue"], {"issue_id": 1, "status": "closed"}, episode, 2,
                  episode.rng(2))
    assert [(e.op, e.key, e.fields.get("status")) for e in infer_effects(update, Prediction({}))] == [
        ("update", "1", "closed")]
    missing = Step(sim.world, sim.catalog["get_issue"], {"issue_id": 50}, episode, 3, episode.rng(3))
    seen = infer_effects(missing, Prediction({"id": 50, "title": "Known to the model", "status": "open",
                                              "priority": "low"}))
    assert [(e.op, e.key) for e in seen] == [("observe", "50")]  # a read establishes what it showed
