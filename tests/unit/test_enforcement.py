"""Enforcement is the only source of D, follows SPEC §4's matrix row by row, and denies by default."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.policy import capabilities
from domain.policy.capabilities import MATRIX, Condition, Row
from domain.policy.enforcement import ActiveContract, Target, enforce
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
        for folder in ("config", "playsets", "logs", "cache", "artifacts")
        for op in (W, X)
    ],
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


def reference(mode, op, tgt: Target, contract) -> bool:
    """A second, naive reading of SPEC §4/§5: is the request permitted?"""
    rows = [r for r in MATRIX if r.mode is mode and r.root is tgt.root and covers(r, tgt)]
    if not rows:
        return False
    row = max(rows, key=lambda r: len(r.prefix))
    condition = row.write if op is W else row.delete
    if condition is None:
        return False
    if condition is Condition.ALWAYS and not tgt.protected:
        return True
    if contract is None or contract.root is not tgt.root or op not in contract.operations:
        return False
    needs_human = tgt.protected or condition is Condition.CONTRACT_AND_APPROVAL
    return not needs_human or tgt.address in contract.approvals


def covers(row: Row, tgt: Target) -> bool:
    if row.scope is capabilities.Scope.EXACT:
        return tgt.parts == row.prefix
    if row.scope is capabilities.Scope.PLAYSET_LOCAL_MOD and not tgt.in_local_mod:
        return False
    return len(tgt.parts) > len(row.prefix) and tgt.parts[: len(row.prefix)] == row.prefix


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
