import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterviz.apimachinery.fields import (
    EQUALS,
    NOT_EQUALS,
    Requirement,
    check_supported,
    escape_value,
    field_value,
    format_field_selector,
    matches,
    parse_field_selector,
    unescape_value,
    unsupported_fields,
)
from clusterviz.apimachinery.labels import SelectorError

POD = {
    "metadata": {"name": "nginx", "namespace": "default", "uid": "1234"},
    "spec": {"nodeName": "node01", "unschedulable": False},
    "status": {"phase": "Running", "restartCount": 3},
}
EVENT = {
    "metadata": {"name": "nginx.17f", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "name": "nginx", "namespace": "default", "uid": "1234"},
}


def test_single_equality_term_parses():
    assert parse_field_selector("metadata.name=nginx") == [Requirement("metadata.name", EQUALS, "nginx")]


def test_double_equals_is_the_same_as_equals():
    assert parse_field_selector("metadata.name==nginx") == [Requirement("metadata.name", EQUALS, "nginx")]


def test_not_equals_parses():
    assert parse_field_selector("status.phase!=Running") == [Requirement("status.phase", NOT_EQUALS, "Running")]


def test_empty_selector_has_no_terms_and_matches_everything():
    assert parse_field_selector("") == []
    assert matches(POD, [])


def test_empty_terms_between_commas_are_skipped():
    assert parse_field_selector(",metadata.name=a,,") == [Requirement("metadata.name", EQUALS, "a")]


def test_terms_come_back_sorted_by_text():
    reqs = parse_field_selector("spec.nodeName=n1,metadata.name=a")
    assert [r.field for r in reqs] == ["metadata.name", "spec.nodeName"]


def test_describe_events_selector_parses_three_terms():
    reqs = parse_field_selector("involvedObject.name=nginx,involvedObject.namespace=default,involvedObject.uid=1234")
    assert {r.field: r.value for r in reqs} == {
        "involvedObject.name": "nginx",
        "involvedObject.namespace": "default",
        "involvedObject.uid": "1234",
    }
    assert matches(EVENT, reqs)
    assert not matches({**EVENT, "involvedObject": {**EVENT["involvedObject"], "uid": "other"}}, reqs)


def test_empty_value_is_allowed():
    assert parse_field_selector("spec.nodeName=") == [Requirement("spec.nodeName", EQUALS, "")]


def test_escaped_comma_and_equals_stay_in_value():
    assert parse_field_selector(r"metadata.name=a\,b\=c\\d") == [Requirement("metadata.name", EQUALS, "a,b=c\\d")]


def test_first_operator_splits_field_from_value():
    # The field part has no escaping, so "a!=b=c" splits at "!=" and "b=c" is then an unescaped "=".
    with pytest.raises(SelectorError) as excinfo:
        parse_field_selector("a!=b=c")
    assert str(excinfo.value) == "invalid field selector: unescaped character in value: 61"


def test_term_without_operator_is_rejected_with_upstream_message():
    with pytest.raises(SelectorError) as excinfo:
        parse_field_selector("metadata.name=a,foo")
    assert str(excinfo.value) == "invalid selector: 'metadata.name=a,foo'; can't understand 'foo'"


def test_unknown_escape_is_rejected():
    with pytest.raises(SelectorError) as excinfo:
        parse_field_selector(r"metadata.name=a\x")
    assert str(excinfo.value) == r"invalid field selector: invalid escape sequence: \x"


def test_trailing_backslash_is_rejected():
    with pytest.raises(SelectorError) as excinfo:
        unescape_value("abc\\")
    assert str(excinfo.value) == "invalid field selector: invalid escape sequence: \\"


def test_unescaped_comma_in_value_reports_code_point():
    with pytest.raises(SelectorError) as excinfo:
        unescape_value("a,b")
    assert str(excinfo.value) == "invalid field selector: unescaped character in value: 44"


def test_escape_value_escapes_backslash_first():
    assert escape_value("a\\,=") == "a\\\\\\,\\="


@given(st.text(alphabet=st.sampled_from(list("ab\\,= .")), max_size=20))
def test_escaped_values_round_trip_through_the_parser(value):
    assert parse_field_selector("metadata.name=" + escape_value(value)) == [Requirement("metadata.name", EQUALS, value)]


def test_format_field_selector_escapes_values():
    reqs = [Requirement("metadata.name", EQUALS, "a,b"), Requirement("status.phase", NOT_EQUALS, "Running")]
    assert format_field_selector(reqs) == "metadata.name=a\\,b,status.phase!=Running"
    assert parse_field_selector(format_field_selector(reqs)) == reqs


# --- reading fields ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("metadata.name", "nginx"),
        ("spec.nodeName", "node01"),
        ("status.phase", "Running"),
        ("spec.unschedulable", "false"),
        ("status.restartCount", "3"),
        ("spec.missing", ""),
        ("nothing.at.all", ""),
        ("metadata.name.deeper", ""),
        ("metadata", ""),
    ],
)
def test_field_value_reads_dotted_paths_as_strings(path, expected):
    assert field_value(POD, path) == expected


def test_field_value_reads_true_and_null():
    assert field_value({"spec": {"unschedulable": True}}, "spec.unschedulable") == "true"
    assert field_value({"spec": {"nodeName": None}}, "spec.nodeName") == ""


def test_missing_node_name_matches_empty_value_selector():
    pending = {"metadata": {"name": "p"}, "spec": {}}
    assert matches(pending, parse_field_selector("spec.nodeName="))
    assert not matches(POD, parse_field_selector("spec.nodeName="))


def test_not_equals_term_matches_when_field_differs_or_is_missing():
    reqs = parse_field_selector("status.phase!=Succeeded")
    assert matches(POD, reqs)
    assert matches({"metadata": {"name": "x"}}, reqs)
    assert not matches({"status": {"phase": "Succeeded"}}, reqs)


def test_all_terms_must_match():
    reqs = parse_field_selector("metadata.name=nginx,spec.nodeName=node02")
    assert not matches(POD, reqs)


# --- supported fields -----------------------------------------------------------------------

POD_FIELDS = {"metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"}


def test_unsupported_fields_lists_each_unknown_name_once_in_order():
    reqs = parse_field_selector("foo=1,metadata.name=a,bar=2,foo!=3")
    assert unsupported_fields(reqs, POD_FIELDS) == ["bar", "foo"]


def test_unsupported_fields_is_empty_when_all_allowed():
    assert unsupported_fields(parse_field_selector("metadata.name=a,status.phase=Running"), POD_FIELDS) == []


def test_check_supported_raises_field_label_not_supported():
    with pytest.raises(SelectorError) as excinfo:
        check_supported(parse_field_selector("foo=bar"), POD_FIELDS)
    assert str(excinfo.value) == "field label not supported: foo"


def test_check_supported_accepts_allowed_fields():
    check_supported(parse_field_selector("metadata.name=a"), POD_FIELDS)
