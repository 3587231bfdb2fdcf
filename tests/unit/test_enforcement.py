"""Enforcement is the only source of D, follows SPEC §4's matrix row by row, and denies by default."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.policy import capabilities
from domain.policy.capabilities import MATRIX
from domain.policy.enforcement import ActiveContract, Target, enforce, permit, permit_each
from domain.replies.frozen import thaw
from domain.replies.refusal import Refused
from domain.vocabulary import Mode, Operation, ReplyType, RootCategory

R = RootCategory
L, D = Mode.CK3LENS, Mode.CK3RAVEN_DEV
W, X = Operation.WRITE, Operation.DELETE


def target(root: RootCategory, *parts: str, local_mod: bool = False, protected: bool = False) -> Target:
    address = f"{root.value}:/{'/'.join(parts)}"
    return Target(address, root, parts, in_local_mod=local_mod, protected=protected)


def contract_for(
    root: RootCategory, *ops: Operation, approvals: frozenset[str] = frozenset()
) -> ActiveContract:
    return ActiveContract("c-1", root, frozenset(ops or (W, X)), approvals)


# (mode, operation, target, without contract, with a matching contract)
TABLE = [
    (L, W, target(R.ROOT_USER_DOCS, "mod", "LocalFix", "x.txt", local_mod=True), "contract", "S"),
    (L, X, target(R.ROOT_USER_DOCS, "mod", "LocalFix", "x.txt", local_mod=True), "contract", "S"),
    (L, W, target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt"), "S", "S"),
    (L, X, target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt"), "S", "S"),
    (L, W, target(R.ROOT_CK3RAVEN_DATA, "playsets", "p.json"), "contract", "S"),
    (L, X, target(R.ROOT_CK3RAVEN_DATA, "playsets", "p.json"), "contract", "S"),
    (L, W, target(R.ROOT_USER_DOCS, "launcher-v2.sqlite"), "contract", "human_approval"),
    (L, X, target(R.ROOT_USER_DOCS, "launcher-v2.sqlite"), "never", "never"),
    (L, W, target(R.ROOT_USER_DOCS, "mod", "Unused", "x.txt"), "mode", "mode"),
    (L, W, target(R.ROOT_REPO, "src", "x.py"), "mode", "mode"),
    (L, W, target(R.ROOT_GAME, "common", "x.txt"), "never", "never"),
    (L, W, target(R.ROOT_STEAM, "2217000001", "x.txt"), "never", "never"),
    (L, W, target(R.ROOT_VSCODE, "settings.json"), "mode", "mode"),
    (L, W, target(R.ROOT_CK3RAVEN_DATA, "config", "x.toml"), "mode", "mode"),
    (D, W, target(R.ROOT_REPO, "src", "x.py"), "contract", "S"),
    (D, X, target(R.ROOT_REPO, "src", "x.py"), "contract", "S"),
    (D, W, target(R.ROOT_USER_DOCS, "mod", "Any", "x.txt"), "contract", "S"),
    (D, X, target(R.ROOT_USER_DOCS, "mod", "Any", "x.txt"), "contract", "S"),
    (D, W, target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt"), "S", "S"),
    (D, X, target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt"), "S", "S"),
    *[
        (D, op, target(R.ROOT_CK3RAVEN_DATA, folder, "f"), "contract", "S")
        for folder in ("config", "playsets", "cache", "artifacts")
        for op in (W, X)
    ],
    (D, W, target(R.ROOT_CK3RAVEN_DATA, "logs", "x"), "never", "never"),
    (D, W, target(R.ROOT_VSCODE, "settings.json"), "contract", "S"),
    (D, X, target(R.ROOT_VSCODE, "settings.json"), "never", "never"),
    (D, W, target(R.ROOT_GAME, "common", "x.txt"), "never", "never"),
    (D, W, target(R.ROOT_STEAM, "2217000001", "x.txt"), "never", "never"),
    (D, W, target(R.ROOT_USER_DOCS, "launcher-v2.sqlite"), "mode", "mode"),
    (D, W, target(R.ROOT_CK3RAVEN_DATA, "state", "x"), "never", "never"),
    (D, W, target(R.ROOT_REPO), "never", "never"),
    (D, X, target(R.ROOT_CK3RAVEN_DATA, "wip"), "never", "never"),
]


def outcome(reply) -> str:
    if reply.reply_type is ReplyType.SUCCESS:
        return "S"
    assert reply.reply_type is ReplyType.DENIED
    return reply.data["required"] or "never"


@pytest.mark.parametrize(("mode", "op", "tgt", "bare", "_"), TABLE, ids=lambda v: getattr(v, "address", None))
def test_each_row_without_a_contract(mode, op, tgt, bare, _):
    assert outcome(enforce(mode, op, tgt, None)) == bare


@pytest.mark.parametrize(
    ("mode", "op", "tgt", "_", "with_contract"), TABLE, ids=lambda v: getattr(v, "address", None)
)
def test_each_row_with_a_contract_for_its_root(mode, op, tgt, _, with_contract):
    assert outcome(enforce(mode, op, tgt, contract_for(tgt.root))) == with_contract


def test_a_denial_names_the_rule_and_what_it_needs():
    reply = enforce(L, W, target(R.ROOT_CK3RAVEN_DATA, "playsets", "p.json"), None)

    assert reply.code == "EN-WRITE-D-002"
    assert reply.data["rule"] == "ck3lens.playsets"
    assert reply.data["required"] == "contract"


def test_a_contract_for_another_root_is_denied():
    reply = enforce(D, W, target(R.ROOT_REPO, "x.py"), contract_for(R.ROOT_USER_DOCS))

    assert reply.code == "EN-WRITE-D-003"


def test_an_undeclared_operation_is_denied():
    reply = enforce(D, X, target(R.ROOT_REPO, "x.py"), contract_for(R.ROOT_REPO, W))

    assert reply.code == "EN-WRITE-D-004"


def test_a_protected_target_needs_an_approval_on_the_contract():
    protected = target(R.ROOT_REPO, "policy", "protected_files.json", protected=True)

    denied = enforce(D, W, protected, contract_for(R.ROOT_REPO))
    allowed = enforce(D, W, protected, contract_for(R.ROOT_REPO, approvals=frozenset({protected.address})))

    assert denied.code == "EN-WRITE-D-005"
    assert allowed.reply_type is ReplyType.SUCCESS


def test_an_approval_covers_only_the_exact_spelling_it_names():
    upper = target(R.ROOT_REPO, ".GITHUB", "CI.YML", protected=True)

    reply = enforce(
        D, W, upper, contract_for(R.ROOT_REPO, approvals=frozenset({"ROOT_REPO:/.github/ci.yml"}))
    )

    assert reply.code == "EN-WRITE-D-005"


def test_a_protected_target_in_an_always_row_still_needs_approval():
    reply = enforce(D, W, target(R.ROOT_CK3RAVEN_DATA, "wip", "x", protected=True), None)

    assert reply.data["required"] == "contract"


def test_without_a_mode_everything_is_denied():
    assert enforce(None, W, target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt"), None).reply_type is ReplyType.DENIED


# ---------------------------------------------------------------- properties

roots = st.sampled_from(list(RootCategory))
segments = st.sampled_from(
    ["mod", "wip", "playsets", "config", "logs", "state", "src", "x.txt", "launcher-v2.sqlite"]
)
targets = st.builds(
    lambda root, parts, local, protected: target(root, *parts, local_mod=local, protected=protected),
    roots,
    st.lists(segments, max_size=4),
    st.booleans(),
    st.booleans(),
)
modes = st.sampled_from([*Mode, None])
operations = st.sampled_from([W, X])
contracts = st.one_of(
    st.none(),
    st.builds(
        lambda root, ops, approve: ActiveContract("c", root, frozenset(ops), frozenset(approve)),
        roots,
        st.sets(operations),
        st.sets(st.sampled_from(["rOOT_REPO:/x.txt", "root_repo:/x.txt"])),
    ),
)


def inside(tgt: Target, root: RootCategory, *folder: str) -> bool:
    """Strictly inside `folder` of `root`."""
    return tgt.root is root and len(tgt.parts) > len(folder) and tgt.parts[: len(folder)] == folder


DATA_FOLDERS = ("config", "playsets", "cache", "artifacts")
# SPEC §4's mutation table transcribed by hand, not read from MATRIX: mode, targets, WRITE, DELETE
SPEC_TABLE = [
    (L, lambda t: t.root is R.ROOT_USER_DOCS and t.parts == ("launcher-v2.sqlite",), "approval", None),
    (L, lambda t: inside(t, R.ROOT_USER_DOCS, "mod") and t.in_local_mod, "contract", "contract"),
    (L, lambda t: inside(t, R.ROOT_CK3RAVEN_DATA, "wip"), "always", "always"),
    (L, lambda t: inside(t, R.ROOT_CK3RAVEN_DATA, "playsets"), "contract", "contract"),
    (D, lambda t: inside(t, R.ROOT_REPO), "contract", "contract"),
    (D, lambda t: inside(t, R.ROOT_USER_DOCS, "mod"), "contract", "contract"),
    (D, lambda t: inside(t, R.ROOT_CK3RAVEN_DATA, "wip"), "always", "always"),
    (D, lambda t: any(inside(t, R.ROOT_CK3RAVEN_DATA, f) for f in DATA_FOLDERS), "contract", "contract"),
    (D, lambda t: inside(t, R.ROOT_VSCODE), "contract", None),
]


def spec_table(mode, op, tgt: Target) -> str | None:
    """'always', 'contract', 'approval' (contract + human approval), or None where SPEC §4 has no entry."""
    for row_mode, covers, write, delete in SPEC_TABLE:
        if row_mode is mode and covers(tgt):
            return write if op is W else delete
    return None


def reference(mode, op, tgt: Target, contract) -> bool:
    """A second, naive reading of SPEC §4/§5, independent of the code's matrix: is the request permitted?"""
    condition = spec_table(mode, op, tgt)
    if condition is None:
        return False
    if condition == "always" and not tgt.protected:
        return True
    if contract is None or contract.root is not tgt.root or op not in contract.operations:
        return False
    needs_human = tgt.protected or condition == "approval"
    return not needs_human or tgt.address in contract.approvals


@given(modes, operations, targets, contracts)
def test_enforcement_agrees_with_a_reference_model(mode, op, tgt, contract):
    reply = enforce(mode, op, tgt, contract)

    assert (reply.reply_type is ReplyType.SUCCESS) == reference(mode, op, tgt, contract)


@given(modes, operations, targets, contracts)
def test_enforcement_answers_only_success_or_denied_with_en_codes(mode, op, tgt, contract):
    reply = enforce(mode, op, tgt, contract)

    assert reply.reply_type in {ReplyType.SUCCESS, ReplyType.DENIED}
    assert reply.code.startswith("EN-")


@given(modes, operations, targets, contracts)
def test_a_target_no_row_covers_is_never_permitted(mode, op, tgt, contract):
    if capabilities.row_for(mode, tgt.root, tgt.parts, in_local_mod=tgt.in_local_mod) if mode else None:
        return

    assert enforce(mode, op, tgt, contract).reply_type is ReplyType.DENIED


@given(modes, operations, targets, contracts, st.integers(min_value=0, max_value=len(MATRIX) - 1))
def test_removing_a_row_never_turns_a_denial_into_a_success(mode, op, tgt, contract, drop):
    before = enforce(mode, op, tgt, contract).reply_type
    original = capabilities.MATRIX
    capabilities.MATRIX = original[:drop] + original[drop + 1 :]
    try:
        after = enforce(mode, op, tgt, contract).reply_type
    finally:
        capabilities.MATRIX = original

    assert not (before is ReplyType.DENIED and after is ReplyType.SUCCESS)


def every_case():
    """Every mode, operation, root, target of up to two segments, flag and kind of contract: a finite world
    small enough to walk whole, so that a rule broken for one combination cannot slip past a sample."""
    names = ["mod", "wip", "playsets", "config", "logs", "cache", "state", "x.txt", "launcher-v2.sqlite"]
    paths = [(), *((a,) for a in names), *((a, b) for a in names for b in ("x.txt", "sub"))]
    for mode, op, root, parts, local, protected in itertools.product(
        [*Mode, None], [W, X], RootCategory, paths, (False, True), (False, True)
    ):
        tgt = target(root, *parts, local_mod=local, protected=protected)
        for contract in (
            None,
            ActiveContract("c", root, frozenset({W, X})),
            ActiveContract("c", root, frozenset({W, X}), frozenset({tgt.address})),
            ActiveContract("c", root, frozenset({op})),
            ActiveContract("c", root, frozenset({W, X} - {op}), frozenset({tgt.address})),
            ActiveContract(
                "c", R.ROOT_REPO if root is not R.ROOT_REPO else R.ROOT_USER_DOCS, frozenset({W, X})
            ),
        ):
            yield mode, op, tgt, contract


def test_enforcement_agrees_with_the_spec_table_and_answers_only_s_or_d_in_every_case():
    disagreements, other_replies = [], []
    for mode, op, tgt, contract in every_case():
        reply = enforce(mode, op, tgt, contract)
        if reply.reply_type not in {ReplyType.SUCCESS, ReplyType.DENIED} or not reply.code.startswith("EN-"):
            other_replies.append((mode, op, tgt.address, reply.code))
        elif (reply.reply_type is ReplyType.SUCCESS) != reference(mode, op, tgt, contract):
            disagreements.append(
                (mode, op, tgt.address, tgt.in_local_mod, tgt.protected, contract, reply.code)
            )

    assert other_replies == []
    assert disagreements == []


def test_a_decision_made_once_is_made_again_when_any_fact_changes():
    wip = target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt")
    assert enforce(L, W, wip, None).reply_type is ReplyType.SUCCESS  # decided, and kept
    protected = target(R.ROOT_CK3RAVEN_DATA, "wip", "a.txt", protected=True)
    assert enforce(L, W, protected, None).code == "EN-WRITE-D-002"
    assert enforce(L, W, protected, contract_for(R.ROOT_CK3RAVEN_DATA)).code == "EN-WRITE-D-005"
    assert enforce(D, X, protected, contract_for(R.ROOT_CK3RAVEN_DATA, W)).code == "EN-WRITE-D-004"
    assert enforce(L, W, wip, None).reply_type is ReplyType.SUCCESS


def test_a_denial_with_no_way_in_names_the_mode_and_the_rule_that_covers_the_target():
    reply = enforce(L, X, target(R.ROOT_USER_DOCS, "launcher-v2.sqlite"), None)

    assert reply.code == "EN-WRITE-D-001"
    assert (reply.data["mode"], reply.data["rule"]) == ("ck3lens", "ck3lens.launcher-registry")


def test_a_contract_for_another_root_or_without_the_operation_still_needs_a_contract():
    other_root = enforce(D, W, target(R.ROOT_REPO, "x.py"), contract_for(R.ROOT_USER_DOCS))
    no_delete = enforce(D, X, target(R.ROOT_REPO, "x.py"), contract_for(R.ROOT_REPO, W))

    assert (other_root.code, other_root.data["required"]) == ("EN-WRITE-D-003", "contract")
    assert (no_delete.code, no_delete.data["required"]) == ("EN-WRITE-D-004", "contract")


# ---------------------------------------------------------------- the way out a denial names


def test_a_write_without_a_contract_carries_the_call_that_opens_one_for_it():
    reply = enforce(D, W, target(R.ROOT_REPO, "src", "x.py"), None)

    assert reply.code == "EN-WRITE-D-002"
    assert reply.data["root_category"] == "ROOT_REPO"
    assert thaw(reply.data["request"]) == {
        "tool": "ck3_contract",
        "arguments": {
            "command": "open",
            "root_category": "ROOT_REPO",
            "operations": ["WRITE"],
            "targets": [{"path": "ROOT_REPO:/src/x.py", "edit_kind": "modify"}],
            "intent": "<why the work is done>",
            "work_declaration": "<what the work is>",
        },
    }


def test_the_ready_call_declares_the_edit_kind_the_call_makes():
    reply = enforce(D, W, target(R.ROOT_REPO, "new.py"), None, edit_kind="add")

    assert thaw(reply.data["request"]["arguments"]["targets"]) == [
        {"path": "ROOT_REPO:/new.py", "edit_kind": "add"}
    ]


@pytest.mark.parametrize(
    ("mods", "name"), [(("Local Fix",), "Local Fix"), (("A", "B"), "<one of data.mods>")]
)
def test_a_write_to_a_game_file_names_the_local_mods_and_the_override_call(mods, name):
    game = target(R.ROOT_GAME, "common", "traits", "00_traits.txt")

    reply = enforce(L, W, game, None, copy_into=mods)

    assert reply.code == "EN-WRITE-D-001"
    assert (reply.data["required"], thaw(reply.data["mods"])) == ("local_mod", list(mods))
    assert thaw(reply.data["request"]) == {
        "tool": "ck3_file",
        "arguments": {"command": "override", "path": game.address, "name": name},
    }


def test_a_delete_of_a_game_file_or_a_write_with_no_local_mod_names_no_override():
    game = target(R.ROOT_GAME, "common", "x.txt")

    assert "request" not in enforce(L, X, game, None, copy_into=("Local Fix",)).data
    assert "request" not in enforce(L, W, game, None).data
    assert "request" not in enforce(L, W, target(R.ROOT_REPO, "x"), None, copy_into=("Local Fix",)).data


def test_enforcing_each_target_gives_a_permit_for_each_when_every_one_is_permitted():
    contract = contract_for(R.ROOT_REPO)
    targets = [(target(R.ROOT_REPO, "a.py"), "modify"), (target(R.ROOT_REPO, "b.py"), "add")]

    assert [p.address for p in permit_each(D, W, targets, contract)] == ["ROOT_REPO:/a.py", "ROOT_REPO:/b.py"]


def test_enforcing_each_target_refuses_with_one_contract_declaring_every_target_of_the_root_that_needs_it():
    targets = [
        (target(R.ROOT_CK3RAVEN_DATA, "wip", "scratch.txt"), "add"),  # needs no contract
        (target(R.ROOT_REPO, "a.py"), "modify"),
        (target(R.ROOT_REPO, "b.py"), "add"),
        (target(R.ROOT_USER_DOCS, "mod", "M", "x.txt"), "modify"),  # another root: its own contract
    ]

    with pytest.raises(Refused) as refused:
        permit_each(D, W, targets, None)

    reply = refused.value.reply
    assert (reply.code, reply.data["address"], reply.data["rule"]) == (
        "EN-WRITE-D-002",
        "ROOT_REPO:/a.py",
        "ck3raven-dev.repo",
    )
    assert thaw(reply.data["request"]["arguments"]["targets"]) == [
        {"path": "ROOT_REPO:/a.py", "edit_kind": "modify"},
        {"path": "ROOT_REPO:/b.py", "edit_kind": "add"},
    ]


def test_enforcing_each_target_refuses_with_the_first_refusal_a_contract_cannot_mend_as_it_is():
    targets = [(target(R.ROOT_REPO, "a.py"), "modify"), (target(R.ROOT_GAME, "x.txt"), "modify")]

    with pytest.raises(Refused) as refused:
        permit_each(D, W, targets, contract_for(R.ROOT_REPO))

    reply = refused.value.reply
    assert (reply.code, reply.data["address"]) == ("EN-WRITE-D-001", "ROOT_GAME:/x.txt")


@given(modes, operations, targets, contracts)
def test_a_permit_is_given_exactly_when_enforcement_answers_s_and_its_refusal_is_the_same_d(
    mode, op, tgt, contract
):
    reply = enforce(mode, op, tgt, contract)

    if reply.reply_type is ReplyType.SUCCESS:
        given_permit = permit(mode, op, tgt, contract)
        assert (given_permit.address, given_permit.rule) == (tgt.address, reply.data["rule"])
    else:
        with pytest.raises(Refused) as refused:
            permit(mode, op, tgt, contract)
        assert refused.value.reply == reply
