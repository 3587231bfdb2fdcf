"""The carry-over section of an open reply (law §13.3, §13.4): files clustered by the contract whose work
they are, the ended contract that declared an unattributed one, a severity that rises with the opens a file
was left out of, a template to declare them, and the whole cut to the room a reply has for it."""

import pytest

from domain.contracts.carry_over import CarriedFile, report, within
from domain.replies import budget

A, B, C = "ROOT_REPO:/a.py", "ROOT_REPO:/b.py", "ROOT_REPO:/c.py"


def test_each_file_is_listed_in_its_cluster_with_its_kind_and_the_opens_it_was_left_out_of():
    carried = [
        CarriedFile(A, "modify", "ct-1", declared_by="ct-0"),
        CarriedFile(B, "add", None, declared_by="ct-2"),
        CarriedFile(C, "delete", None),
    ]

    section = report(carried, {A: 2, B: 1})

    assert section == {
        "severity": "warning",
        "clusters": {
            "ct-1": [{"address": A, "kind": "modify", "opens": 2}],  # its own work: who declared it is moot
            "unattributed": [
                {"address": B, "kind": "add", "opens": 1, "declared_by": "ct-2"},
                {"address": C, "kind": "delete", "opens": 0},
            ],
        },
        "template": [
            {"path": A, "edit_kind": "modify"},
            {"path": B, "edit_kind": "add"},
            {"path": C, "edit_kind": "delete"},
        ],
    }


@pytest.mark.parametrize(
    ("counts", "severity"),
    [
        ({}, "informational"),
        ({A: 1}, "informational"),
        ({A: 1, B: 2}, "warning"),
        ({A: 3}, "required"),
        ({A: 7}, "required"),
    ],
)
def test_the_severity_is_that_of_the_file_left_out_of_the_most_opens(counts: dict[str, int], severity: str):
    carried = [CarriedFile(A, "modify", None), CarriedFile(B, "modify", None)]

    assert report(carried, counts)["severity"] == severity


def rows(prefix: str, count: int) -> list[dict[str, object]]:
    return [{"address": f"ROOT_REPO:/{prefix}/{n:03}.py", "kind": "modify", "opens": 1} for n in range(count)]


def test_within_its_room_each_cluster_keeps_its_share_and_the_template_half_and_all_are_counted():
    clusters = {"ct-1": rows("one", 40), "unattributed": rows("two", 40)}
    template = [{"path": r["address"], "edit_kind": "modify"} for rs in clusters.values() for r in rs]
    section = {"severity": "warning", "clusters": clusters, "template": template}

    cut = within(section, 2000)

    share = budget.rows_fitting(clusters["ct-1"], 2000 // 4)
    assert 0 < share < budget.rows_fitting(clusters["ct-1"], 2000 // 2)
    assert cut == {
        "severity": "warning",
        "count": 80,
        "clusters": {"ct-1": clusters["ct-1"][:share], "unattributed": clusters["unattributed"][:share]},
        "template": template[: budget.rows_fitting(template, 1000)],
    }
    assert budget.rows_fitting(template, 1000) < budget.rows_fitting(template, 2000)


def test_one_cluster_has_half_the_room_and_a_section_without_clusters_keeps_its_template():
    one = {"severity": "informational", "clusters": {"ct-1": rows("one", 40)}, "template": []}
    none = {"severity": "informational", "clusters": {}, "template": [{"path": A, "edit_kind": "add"}]}

    assert within(one, 2000)["clusters"] == {
        "ct-1": rows("one", 40)[: budget.rows_fitting(rows("one", 40), 1000)]
    }
    assert within(none, 2000) == {**none, "count": 1}
