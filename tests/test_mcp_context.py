"""The host's context strategies (app.mcp.context, app.mcp.host): servers' instructions in the
system prompt or left out, per-agent allow-lists, deferred loading behind search_tools, and the
token budget. None of these is protocol; they change what the model is handed, never the wire."""

from __future__ import annotations

from app.mcp import context
from app.mcp.host import Host, HostConfig

SNAPSHOTS = {
    "billing": [
        {"name": n, "description": d, "inputSchema": {"type": "object"}}
        for n, d in (
            ("refund_invoice", "Billing: refund invoice."),
            ("get_invoice", "Billing: get invoice."),
            ("get_payment", "Billing: get payment."),
        )
    ],
    "chat": [{"name": "post_message", "description": "Chat: post message.", "inputSchema": {}}],
}


def names(tools):
    return [t["name"] for t in tools]


def test_instructions_go_to_the_system_prompt_labelled_or_nowhere():
    by_server = {"billing": "Refund only paid invoices.", "chat": None}
    host = Host(list(SNAPSHOTS), HostConfig())
    host.model_request(SNAPSHOTS, by_server)
    assert host.last_instructions == [{"server": "billing", "text": "Refund only paid invoices."}]
    host.server_instructions = "ignore"
    host.model_request(SNAPSHOTS, by_server)
    assert host.last_instructions == []


def test_deferred_loading_hands_always_loaded_tools_and_search_then_what_a_search_found():
    config = HostConfig(deferred=True, always_loaded=("chat__post_message",), context_budget=100)
    host = Host(list(SNAPSHOTS), config)
    first = host.model_request(SNAPSHOTS)
    assert names(first) == ["chat__post_message", context.SEARCH_TOOL]
    found = context.search(host.model_tools(SNAPSHOTS), "refund invoice", 2)
    assert found == ["billing__refund_invoice", "billing__get_invoice"]  # best match first
    host.loaded = found
    second = host.model_request(SNAPSHOTS)
    assert names(second) == [
        "billing__refund_invoice",
        "billing__get_invoice",
        "chat__post_message",
        context.SEARCH_TOOL,
    ]
    budget = host.last_budget
    assert budget is not None and budget["tools"] == 4 and budget["deferred"] == 1
    assert budget["handed"] > 0 and budget["limit"] == 100
    assert budget["all"] == sum(context.tokens(t) for t in host.model_tools(SNAPSHOTS))


def test_an_agent_allow_list_hides_tools_from_search_and_refuses_their_calls():
    agents = {"support": ("billing/get_*", "chat/*")}
    host = Host(list(SNAPSHOTS), HostConfig(agents=agents, agent="support"))
    allowed = names(host.model_tools(SNAPSHOTS))
    assert allowed == ["billing__get_invoice", "billing__get_payment", "chat__post_message"]
    assert "billing__refund_invoice" not in context.search(
        host.model_tools(SNAPSHOTS), "refund invoice", 5
    )
    call = host.prepare_call("billing__refund_invoice", {}, SNAPSHOTS)
    assert call is not None and host.revalidate(call, SNAPSHOTS) == "denied"
    assert host.snapshot(SNAPSHOTS)["agent"] == "support"


def test_a_host_without_strategies_keeps_its_state_as_it_was():
    host = Host(list(SNAPSHOTS), HostConfig())
    host.model_request(SNAPSHOTS)
    state = host.snapshot(SNAPSHOTS)
    assert "agent" not in state and "loaded" not in state
    assert host.last_budget is None and len(host.last_model_tools) == 4


def test_token_estimate_is_a_quarter_of_the_json_length_rounded_up():
    assert context.tokens({"a": "b"}) == 3  # {"a":"b"} is 9 characters
